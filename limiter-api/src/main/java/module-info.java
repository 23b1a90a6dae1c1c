/**
 * Sluice's API, the pure algorithms, the runtime shared by every backend and the in-process backend. Users
 * see the API and the in-process backend; the algorithms and the backend contract are for Sluice's backend
 * modules only; the runtime is seen by no other module.
 */
module dev.sluice.limiter {
    // Only dev.sluice.limiter.micrometer uses it (its API takes a MeterRegistry); optional at run time.
    requires static micrometer.core;

    exports dev.sluice.limiter;
    exports dev.sluice.limiter.local;
    exports dev.sluice.limiter.micrometer;
    exports dev.sluice.limiter.store to dev.sluice.hazelcast, dev.sluice.jcache;
    exports dev.sluice.limiter.algorithm to dev.sluice.hazelcast, dev.sluice.jcache;
}
