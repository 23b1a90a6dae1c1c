package dev.sluice.limiter.runtime;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.Settlement;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.StepRequest;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/** A granted rate lease: a value, plus the refund of its permits to the store, or its settlement, once. */
final class RateGrant implements Lease {
    // A field updater, not an AtomicBoolean: one object less on every grant.
    private static final AtomicIntegerFieldUpdater<RateGrant> REFUNDED =
            AtomicIntegerFieldUpdater.newUpdater(RateGrant.class, "refunded");
    private final DefaultRateLimiter limiter;
    private final Verdict verdict;
    private final long permits;
    private volatile int refunded;

    RateGrant(DefaultRateLimiter limiter, Verdict verdict, long permits) {
        this.limiter = limiter;
        this.verdict = verdict;
        this.permits = permits;
    }

    @Override public boolean isAcquired() { return true; }
    @Override public long remaining() { return verdict.remaining(); }
    @Override public long limit() { return verdict.limit(); }
    @Override public Optional<Duration> retryAfter() { return Optional.empty(); }
    @Override public Duration resetAfter() { return Duration.ofMillis(Math.max(0, verdict.resetAfterMillis())); }
    @Override public boolean isDegraded() { return false; }
    @Override public OptionalLong fencingToken() { return OptionalLong.empty(); }
    @Override public void close() {}

    @Override
    public CompletableFuture<Boolean> refund() {
        // A grant made on an overflow cell keeps its permits (see Overflow): nothing is sent, nothing given back.
        if (!REFUNDED.compareAndSet(this, 0, 1) || Overflow.isCellToken(verdict.token())) {
            return CompletableFuture.completedFuture(false);
        }
        try {
            // One id for every attempt and re-run of this refund: the store applies it once.
            long permitsWord = Algorithms.refundPermits(permits, Algorithms.newRefundId());
            return limiter.decider().decideAsync(limiter.request(Op.REFUND, permitsWord, verdict.token()),
                    limiter.options()).handle((v, failure) -> failure == null && v.granted());
        } catch (RuntimeException closing) {
            return CompletableFuture.completedFuture(false);
        }
    }

    @Override
    public CompletableFuture<Settlement> settle(long cost) {
        Settlement.checkCost(cost, limiter.name());
        if (!REFUNDED.compareAndSet(this, 0, 1)) {
            throw new IllegalStateException("a lease of '" + limiter.name() + "' is settled or refunded once; this one"
                    + " already was");
        }
        if (Overflow.isCellToken(verdict.token())) {
            return CompletableFuture.completedFuture(new Settlement(Settlement.Status.NOTHING_HELD, permits, cost, 0));
        }
        if (cost == permits) {
            return CompletableFuture.completedFuture(new Settlement(Settlement.Status.SETTLED, permits, cost, 0));
        }
        try {
            // One id for every attempt and re-run of this settlement: the store applies it once.
            boolean lower = cost < permits;
            long permitsWord = Algorithms.refundPermits(lower ? permits - cost : cost - permits,
                    Algorithms.newRefundId());
            StepRequest request = lower ? limiter.request(Op.REFUND, permitsWord, verdict.token())
                    : limiter.request(Op.CHARGE, permitsWord, 0);
            return limiter.decider().decideAsync(request, limiter.options()).handle((v, failure) -> {
                if (failure != null) {
                    return new Settlement(Settlement.Status.FAILED, permits, cost, 0);
                }
                if (lower && v.granted()) {
                    limiter.permitsReturned();
                }
                return new Settlement(Settlement.Status.SETTLED, permits, cost, lower ? 0 : v.token());
            });
        } catch (RuntimeException closing) {
            return CompletableFuture.completedFuture(new Settlement(Settlement.Status.FAILED, permits, cost, 0));
        }
    }

    @Override
    public String toString() {
        return "Lease[granted, remaining=" + verdict.remaining() + ", limit=" + verdict.limit()
                + (refunded != 0 ? ", refunded or settled" : "") + "]";
    }
}
