package dev.sluice.prefilter;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.RateLimiter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A {@link RateLimiter} behind a pre-filter: one store key, the wrapped limiter's calls. */
final class PrefilteredRateLimiter extends PrefilteredLimiter<Void> implements RateLimiter {
    private final RateLimiter limiter;
    private final Prefilter.Remote remote;

    PrefilteredRateLimiter(RateLimiter limiter, PrefilterOptions options) {
        super(limiter.name(), limiter.spec(), limiter.options(), options, limiter::statistics, limiter::close);
        this.limiter = limiter;
        this.remote = new Prefilter.Remote() {
            @Override
            public Lease tryAcquire(long permits) {
                return limiter.tryAcquire(permits);
            }

            @Override
            public CompletableFuture<Lease> acquireAsync(long permits) {
                return limiter.acquireAsync(permits);
            }

            @Override
            public Lease acquire(long permits, Duration maxWait) throws InterruptedException {
                return limiter.acquire(permits, maxWait);
            }
        };
    }

    @Override String storeKey(Void none) { return limiter.key(); }
    @Override Prefilter.Remote remote(Void none) { return remote; }

    @Override public String key() { return limiter.key(); }
    @Override public dev.sluice.limiter.KeyState inspect() { return limiter.inspect(); }
    @Override public dev.sluice.limiter.KeyState reset() { return reset(null, limiter::reset); }

    @Override
    public dev.sluice.limiter.KeyState reset(long remaining) {
        return reset(null, () -> limiter.reset(remaining));
    }

    @Override public Lease tryAcquire(long permits) { return decide(null, permits); }
    @Override public CompletableFuture<Lease> acquireAsync(long permits) { return decideAsync(null, permits); }

    @Override
    public Lease acquire(long permits, Duration maxWait) throws InterruptedException {
        return decideWaiting(null, permits, maxWait);
    }

    @Override
    public String toString() {
        return "Prefiltered" + limiter;
    }
}
