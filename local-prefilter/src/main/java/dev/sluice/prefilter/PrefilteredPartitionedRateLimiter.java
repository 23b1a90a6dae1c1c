package dev.sluice.prefilter;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.PartitionedRateLimiter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A {@link PartitionedRateLimiter} behind one {@link Prefilter} keyed by each partition's store key. */
final class PrefilteredPartitionedRateLimiter<P> implements PartitionedRateLimiter<P> {
    private final PartitionedRateLimiter<P> limiter;
    final Prefilter prefilter;
    private volatile boolean closed;

    PrefilteredPartitionedRateLimiter(PartitionedRateLimiter<P> limiter, PrefilterOptions options) {
        this.limiter = limiter;
        this.prefilter = new Prefilter(limiter.name(), limiter.spec(), limiter.options(), options);
    }

    @Override public String name() { return limiter.name(); }
    @Override public LimitSpec spec() { return limiter.spec(); }
    @Override public LimiterOptions options() { return limiter.options(); }
    @Override public String keyOf(P partition) { return limiter.keyOf(partition); }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("limiter '" + limiter.name() + "' is closed");
        }
    }

    private Prefilter.Remote remote(P partition) {
        return new Prefilter.Remote() {
            @Override
            public Lease tryAcquire(long permits) {
                return limiter.tryAcquire(partition, permits);
            }

            @Override
            public CompletableFuture<Lease> acquireAsync(long permits) {
                return limiter.acquireAsync(partition, permits);
            }

            @Override
            public Lease acquire(long permits, Duration maxWait) throws InterruptedException {
                return limiter.acquire(partition, permits, maxWait);
            }
        };
    }

    @Override
    public Lease tryAcquire(P partition, long permits) {
        checkOpen();
        return prefilter.tryAcquire(limiter.keyOf(partition), remote(partition), permits);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(P partition, long permits) {
        if (closed) {
            return limiter.acquireAsync(partition, permits).thenApply(PrefilterLeases::store); // refused by the closed limiter
        }
        return prefilter.acquireAsync(limiter.keyOf(partition), remote(partition), permits);
    }

    @Override
    public Lease acquire(P partition, long permits, Duration maxWait) throws InterruptedException {
        if (maxWait == null || maxWait.isZero() || maxWait.isNegative() || limiter.options().queueLimit() == 0) {
            return tryAcquire(partition, permits); // without a queue, the wrapped limiter would make one decision too
        }
        checkOpen();
        return prefilter.acquire(limiter.keyOf(partition), remote(partition), permits, maxWait);
    }

    @Override
    public LimiterStatistics statistics() {
        return prefilter.statistics(limiter.statistics().queuedPermits());
    }

    @Override
    public void close() {
        closed = true;
        limiter.close();
        prefilter.close();
    }

    @Override
    public String toString() {
        return "Prefiltered" + limiter;
    }
}
