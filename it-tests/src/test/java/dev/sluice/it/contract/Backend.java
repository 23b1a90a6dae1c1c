package dev.sluice.it.contract;

import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.util.List;

/**
 * One backend under the contract suite: a store, the clock its steps read, and one or more replicas
 * (independent {@link RateLimiters} sharing that store, e.g. one per cluster member and a client).
 * Started once per test class; tests isolate themselves with unique limiter names.
 */
public interface Backend extends AutoCloseable {

    /** A short name for test reports, e.g. {@code "hazelcast-client"}. */
    String name();

    /** The clock every step on this backend reads; tests move it. */
    ManualClock clock();

    /** Independent limiter factories sharing one store; at least one. */
    List<RateLimiters> replicas();

    /** The first replica. */
    default RateLimiters limiters() {
        return replicas().get(0);
    }

    @Override
    void close() throws Exception;
}
