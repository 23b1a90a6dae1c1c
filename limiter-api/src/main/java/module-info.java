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

    // Every algorithm, here and in META-INF/services for the class path; AlgorithmsRegistrationTest keeps the two
    // lists the same.
    uses dev.sluice.limiter.algorithm.Algorithm;
    provides dev.sluice.limiter.algorithm.Algorithm with
            dev.sluice.limiter.algorithm.FixedWindowStep,
            dev.sluice.limiter.algorithm.SlidingWindowStep,
            dev.sluice.limiter.algorithm.SlidingLogStep,
            dev.sluice.limiter.algorithm.SlidingCounterStep,
            dev.sluice.limiter.algorithm.TokenBucketStep,
            dev.sluice.limiter.algorithm.GcraStep,
            dev.sluice.limiter.algorithm.ConcurrencyStep,
            dev.sluice.limiter.algorithm.CompositeStep,
            dev.sluice.limiter.algorithm.CalendarWindowStep;
}
