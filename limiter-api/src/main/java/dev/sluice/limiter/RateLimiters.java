package dev.sluice.limiter;

import java.util.function.Function;

/**
 * Creates limiters on one store (in-process, Hazelcast or JCache). Thread-safe. Closing it closes every
 * limiter it created and stops its background work; it never deletes shared state.
 */
public interface RateLimiters extends AutoCloseable {

    /** The prefix of every key this factory stores; {@code "sluice"} unless configured. */
    String keyPrefix();

    /**
     * A limiter stored under {@code <prefix>/<name>}.
     *
     * @throws IllegalArgumentException if the name is empty or holds control characters
     */
    RateLimiter limiter(String name, LimitSpec spec, LimiterOptions options);

    /** A limiter with {@link LimiterOptions#defaults()}. */
    default RateLimiter limiter(String name, LimitSpec spec) {
        return limiter(name, spec, LimiterOptions.defaults());
    }

    /** A limiter per string partition of {@code policy}, with {@link LimiterOptions#defaults()}. */
    default PartitionedRateLimiter<String> partitioned(String policy, LimitSpec spec) {
        return partitioned(policy, spec, LimiterOptions.defaults());
    }

    /**
     * A limiter per string partition of {@code policy}, each stored under {@code <prefix>/<policy>/<partition>}
     * (see {@link Keys#partitionKey}).
     */
    default PartitionedRateLimiter<String> partitioned(String policy, LimitSpec spec, LimiterOptions options) {
        return partitioned(policy, spec, options, Function.identity());
    }

    /** A limiter per partition of {@code policy}; {@code partitionId} turns a partition into its id string. */
    <P> PartitionedRateLimiter<P> partitioned(String policy, LimitSpec spec, LimiterOptions options,
            Function<? super P, String> partitionId);

    /** The size of this factory's store: keys held, its bound, evictions and capacity refusals. */
    default StoreStatistics storeStatistics() {
        return StoreStatistics.UNKNOWN;
    }

    @Override
    void close();
}
