package dev.sluice.limiter.store;

import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Verdict;

import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import java.util.Objects;

/**
 * One step to run atomically on one key.
 *
 * @param key the store key
 * @param spec what to enforce
 * @param op what to do
 * @param permits for {@link Op#ACQUIRE}: permits to take, 0 to probe; for {@link Op#REFUND}: the permits to give
 *     back, with the refund's id above them ({@link Algorithms#refundPermits}); for {@link Op#RESET}: the remaining to
 *     leave; else 0
 * @param leaseId for {@link Op#RENEW} and {@link Op#RELEASE}: the lease's token; for a concurrency
 *     {@link Op#ACQUIRE}: the caller's random nonce, the same on every retry (see {@link Algorithms#step});
 *     else 0
 * @param durability how the backend should keep the state
 */
public record StepRequest(String key, LimitSpec spec, Op op, long permits, long leaseId, Durability durability) {
    public StepRequest {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(durability, "durability");
    }

    /** Runs this request's step on the given state: what every backend's processor does. */
    public Verdict apply(long[] state, long nowMillis) {
        return Algorithms.step(spec, state, nowMillis, op, permits, leaseId);
    }
}
