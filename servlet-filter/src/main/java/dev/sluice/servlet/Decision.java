package dev.sluice.servlet;

import dev.sluice.limiter.Lease;

/**
 * What one policy made of one request.
 *
 * @param policy the policy
 * @param partition the hashed client identity the policy counted the request under (hex SHA-256)
 * @param lease the limiter's answer; null when none could be had ({@link Outcome#UNAVAILABLE})
 * @param outcome how the policy's part ended
 * @param shadow true if the policy was in shadow mode for this request
 */
record Decision(RateLimitPolicy policy, String partition, Lease lease, Outcome outcome, boolean shadow) {

    /** How one policy's part in a request ended. */
    enum Outcome {
        /** Permits taken from the store's count. */
        GRANTED,
        /** Refused by an enforced policy: the request is answered 429. */
        REFUSED,
        /** Would have been refused; the policy is in shadow mode, so the request proceeds. */
        SHADOW_REFUSED,
        /** The store gave no decision in time and the failure mode decided ({@link Lease#isAcquired()} says how). */
        DEGRADED,
        /** No decision at all (failure mode {@code THROW}). */
        UNAVAILABLE,
        /** Not charged, because an earlier policy refused; asked without taking a permit, it had one. */
        SKIPPED
    }

    /** True if this decision makes an enforced refusal (429). */
    boolean refuses() {
        return !shadow && (outcome == Outcome.REFUSED || (outcome == Outcome.DEGRADED && !lease.isAcquired()));
    }

    /** True if this decision leaves the request without an answer (503), unless something refused it. */
    boolean unavailable() {
        return !shadow && outcome == Outcome.UNAVAILABLE;
    }
}
