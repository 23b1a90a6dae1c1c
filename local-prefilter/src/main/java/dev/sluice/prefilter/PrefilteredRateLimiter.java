package dev.sluice.prefilter;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.RateLimiter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A {@link RateLimiter} behind a {@link Prefilter}. */
final class PrefilteredRateLimiter implements RateLimiter {
    private final RateLimiter limiter;
    final Prefilter prefilter;
    private final Prefilter.Remote remote;
    private volatile boolean closed;

    PrefilteredRateLimiter(RateLimiter limiter, PrefilterOptions options) {
        this.limiter = limiter;
        this.prefilter = new Prefilter(limiter.name(), limiter.spec(), limiter.options(), options);
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

    @Override public String name() { return limiter.name(); }
    @Override public String key() { return limiter.key(); }
    @Override public LimitSpec spec() { return limiter.spec(); }
    @Override public LimiterOptions options() { return limiter.options(); }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("limiter '" + limiter.name() + "' is closed");
        }
    }

    @Override
    public Lease tryAcquire(long permits) {
        checkOpen();
        return prefilter.tryAcquire(limiter.key(), remote, permits);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(long permits) {
        if (closed) {
            return limiter.acquireAsync(permits).thenApply(PrefilterLeases::store); // refused by the closed limiter
        }
        return prefilter.acquireAsync(limiter.key(), remote, permits);
    }

    @Override
    public Lease acquire(long permits, Duration maxWait) throws InterruptedException {
        if (maxWait == null || maxWait.isZero() || maxWait.isNegative() || limiter.options().queueLimit() == 0) {
            return tryAcquire(permits); // without a queue, the wrapped limiter would make one decision too
        }
        checkOpen();
        return prefilter.acquire(limiter.key(), remote, permits, maxWait);
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
