package dev.sluice.limiter.runtime;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.Settlement;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A granted concurrency lease: renewed in the background until closed; closing releases it once.
 * A renewal the store refuses (the lease expired there) stops renewal; the lease is not recreated.
 */
final class ConcurrencyLease implements Lease {
    private final DefaultRateLimiter limiter;
    private final Verdict verdict;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile ScheduledFuture<?> renewal;

    ConcurrencyLease(DefaultRateLimiter limiter, Verdict verdict) {
        this.limiter = limiter;
        this.verdict = verdict;
    }

    void startRenewal() {
        long lease = ((LimitSpec.Concurrency) limiter.spec()).leaseDurationMillis();
        long every = limiter.options().renewInterval() != null
                ? Math.min(limiter.options().renewInterval().toMillis(), lease - 1)
                : Math.max(1, lease / 3);
        try {
            renewal = limiter.decider().scheduler.scheduleWithFixedDelay(this::renew, every, every,
                    TimeUnit.MILLISECONDS);
        } catch (RuntimeException rejected) {
            renewal = null; // closing: the lease simply expires in the store
        }
    }

    private void renew() {
        if (released.get()) {
            return;
        }
        if (limiter.stopsRenewals()) {
            // Closing stops renewal (the lease then expires in the store), also for a partition its
            // partitioned limiter no longer tracked when it closed (past its bound of busy partitions).
            stopRenewal();
            return;
        }
        limiter.decider().decideAsync(limiter.request(Op.RENEW, 0, verdict.token()), limiter.options())
                .whenComplete((v, failure) -> {
                    if (failure == null && !v.granted()) {
                        stopRenewal(); // expired in the store: never recreated
                    }
                });
    }

    void stopRenewal() {
        ScheduledFuture<?> r = renewal;
        if (r != null) {
            r.cancel(false);
        }
    }

    @Override public boolean isAcquired() { return true; }
    @Override public long remaining() { return verdict.remaining(); }
    @Override public long limit() { return verdict.limit(); }
    @Override public Optional<Duration> retryAfter() { return Optional.empty(); }
    @Override public Duration resetAfter() { return Duration.ofMillis(verdict.resetAfterMillis()); }
    @Override public boolean isDegraded() { return false; }
    @Override public OptionalLong fencingToken() { return OptionalLong.of(verdict.token()); }

    /**
     * Releases the lease; completes with true once the store gave its permits back, false when it did not
     * (already released here, expired in the store, the runtime closed, the store failed).
     */
    @Override
    public CompletableFuture<Boolean> refund() {
        return release();
    }

    @Override
    public void close() {
        release();
    }

    /** Not settled: a concurrency lease holds permits for a time, not a cost; it is released when closed. */
    @Override
    public CompletableFuture<Settlement> settle(long cost) {
        Settlement.checkCost(cost, limiter.name());
        return CompletableFuture.completedFuture(new Settlement(Settlement.Status.UNSUPPORTED, 0, cost, 0));
    }

    private CompletableFuture<Boolean> release() {
        if (!released.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(false);
        }
        stopRenewal();
        limiter.forget(this);
        CompletableFuture<Verdict> release;
        try {
            release = limiter.decider().decideAsync(limiter.request(Op.RELEASE, 0, verdict.token()),
                    limiter.options());
        } catch (RuntimeException e) {
            limiter.maybeIdle();
            return CompletableFuture.completedFuture(false); // closing: nothing sent, the lease expires in the store
        }
        return release.handle((v, failure) -> {
            limiter.permitsReturned();
            return failure == null && v.granted(); // a lease the store no longer held gave nothing back
        });
    }

    @Override
    public String toString() {
        return "Lease[granted, token=" + verdict.token() + ", remaining=" + verdict.remaining() + ", limit="
                + verdict.limit() + (released.get() ? ", released" : "") + "]";
    }
}
