package dev.sluice.limiter;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One limit applied separately to each partition (a client id, an IP address, a tenant), each with its
 * own key {@code <prefix>/<policy>/<partition>}. Partition strings are escaped so that no partition can
 * forge another's key; hash untrusted identifiers with {@link Keys#sha256(String)} first if they must
 * not be stored. Methods behave as on {@link RateLimiter}.
 *
 * @param <P> the partition type
 */
public interface PartitionedRateLimiter<P> extends AutoCloseable {

    /** The policy name. */
    String name();

    LimitSpec spec();

    LimiterOptions options();

    /** The store key of a partition. */
    String keyOf(P partition);

    Lease tryAcquire(P partition, long permits);

    CompletableFuture<Lease> acquireAsync(P partition, long permits);

    Lease acquire(P partition, long permits, Duration maxWait) throws InterruptedException;

    /** {@link RateLimiter#inspect()} for one partition. */
    default KeyState inspect(P partition) {
        throw new UnsupportedOperationException(getClass().getName() + " does not read its keys' state");
    }

    /** {@link RateLimiter#reset()} for one partition: never another partition's state, nor a shared cell. */
    default KeyState reset(P partition) {
        throw new UnsupportedOperationException(getClass().getName() + " does not reset its keys");
    }

    /** {@link RateLimiter#reset(long)} for one partition. */
    default KeyState reset(P partition, long remaining) {
        throw new UnsupportedOperationException(getClass().getName() + " does not reset its keys");
    }

    /**
     * The spec that decides {@code partition}: {@link #spec()}, or for a {@linkplain RateLimiters#planned planned}
     * limiter its plan's spec (the default plan's for an unknown plan); empty when its plan is unknown and unknown
     * plans are refused.
     */
    default Optional<LimitSpec> specOf(P partition) {
        return Optional.of(spec());
    }

    /**
     * The plan that decides {@code partition} for a {@linkplain RateLimiters#planned planned} limiter (the default
     * plan for an unknown plan); empty for a limiter without plans, or when the partition's plan is unknown and
     * refused.
     */
    default Optional<String> planOf(P partition) {
        return Optional.empty();
    }

    /** Counts over all partitions in this process. */
    LimiterStatistics statistics();

    /** Refuses queued waiters of every partition and stops background work. */
    @Override
    void close();
}
