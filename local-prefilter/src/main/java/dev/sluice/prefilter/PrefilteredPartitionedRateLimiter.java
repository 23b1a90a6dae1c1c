package dev.sluice.prefilter;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.PartitionedRateLimiter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A {@link PartitionedRateLimiter} behind one pre-filter keyed by each partition's store key. */
final class PrefilteredPartitionedRateLimiter<P> extends PrefilteredLimiter<P> implements PartitionedRateLimiter<P> {
    private final PartitionedRateLimiter<P> limiter;

    PrefilteredPartitionedRateLimiter(PartitionedRateLimiter<P> limiter, PrefilterOptions options) {
        super(limiter.name(), limiter.spec(), limiter.options(), options, limiter::statistics, limiter::close);
        this.limiter = limiter;
    }

    @Override String storeKey(P partition) { return limiter.keyOf(partition); }

    @Override
    Prefilter.Remote remote(P partition) {
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

    @Override public String keyOf(P partition) { return limiter.keyOf(partition); }
    @Override public java.util.Optional<dev.sluice.limiter.LimitSpec> specOf(P partition) { return limiter.specOf(partition); }
    @Override public java.util.Optional<String> planOf(P partition) { return limiter.planOf(partition); }
    @Override public dev.sluice.limiter.KeyState inspect(P partition) { return limiter.inspect(partition); }

    @Override
    public dev.sluice.limiter.KeyState reset(P partition) {
        return reset(partition, () -> limiter.reset(partition));
    }

    @Override
    public dev.sluice.limiter.KeyState reset(P partition, long remaining) {
        return reset(partition, () -> limiter.reset(partition, remaining));
    }

    @Override public Lease tryAcquire(P partition, long permits) { return decide(partition, permits); }

    @Override
    public CompletableFuture<Lease> acquireAsync(P partition, long permits) {
        return decideAsync(partition, permits);
    }

    @Override
    public Lease acquire(P partition, long permits, Duration maxWait) throws InterruptedException {
        return decideWaiting(partition, permits, maxWait);
    }

    @Override
    public String toString() {
        return "Prefiltered" + limiter;
    }
}
