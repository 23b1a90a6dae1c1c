package dev.sluice.prefilter;

import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import java.util.Objects;

/**
 * Wraps a limiter with a local pre-filter: a Caffeine cache in this process that answers what it can
 * without a store hop.
 *
 * <ul>
 *   <li>{@link PrefilterMode#REFUSAL_CACHE} (default): exact. After the store refuses a key with a
 *       retry-after, requests of at least the refused size are refused locally until the store's instant,
 *       measured conservatively on the local monotonic clock. It never changes a decision the store would
 *       make.
 *   <li>{@link PrefilterMode#ALLOWANCE} (opt-in): permits are taken from the store in adaptive batches
 *       and granted locally. Never more admissions than the limit; fewer, by at most
 *       {@code processes × max(1, floor(limit × maxBatchFraction))} permits held in other processes.
 * </ul>
 *
 * <p>Concurrency limiters pass through unchanged (a release may free permits at any moment). Leases are
 * {@link PrefilterLease}s saying whether the decision was local. The wrapper is thread-safe; closing it
 * closes the wrapped limiter. {@code statistics()} counts what callers saw, local decisions included.
 */
public final class LocalPrefilter {
    private LocalPrefilter() {}

    /**
     * A limiter that asks {@code limiter} only when it cannot answer locally.
     *
     * @throws IllegalArgumentException if {@code options} ask for {@link PrefilterMode#ALLOWANCE} on a
     *     concurrency limiter
     */
    public static RateLimiter wrap(RateLimiter limiter, PrefilterOptions options) {
        Objects.requireNonNull(limiter, "limiter");
        Objects.requireNonNull(options, "options");
        return new PrefilteredRateLimiter(limiter, options);
    }

    /**
     * A partitioned limiter that asks {@code limiter} only when it cannot answer locally; one cache holds
     * the state of all partitions, bounded by {@link PrefilterOptions#maximumSize()}.
     *
     * @throws IllegalArgumentException if {@code options} ask for {@link PrefilterMode#ALLOWANCE} on a
     *     concurrency limiter
     */
    public static <P> PartitionedRateLimiter<P> wrap(PartitionedRateLimiter<P> limiter, PrefilterOptions options) {
        Objects.requireNonNull(limiter, "limiter");
        Objects.requireNonNull(options, "options");
        return new PrefilteredPartitionedRateLimiter<>(limiter, options);
    }
}
