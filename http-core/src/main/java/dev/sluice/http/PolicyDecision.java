package dev.sluice.http;

import dev.sluice.limiter.Lease;

/**
 * What one policy made of one request.
 *
 * @param policy the policy
 * @param partition the hashed client identity the policy counted the request under (its digest, {@link dev.sluice.limiter.Keys#digest})
 * @param lease the limiter's answer; null when none could be had ({@link Kind#UNAVAILABLE})
 * @param kind how the policy's part ended
 * @param shadow true if the policy was in shadow mode for this request
 * @param permits the permits asked for (0 for a probe)
 * @param refunded the permits given back after another policy refused, so the headers show what stands
 * @param failure why there was no decision ({@link Kind#UNAVAILABLE}); null otherwise
 */
record PolicyDecision(RateLimitPolicy policy, String partition, Lease lease, Kind kind, boolean shadow, long permits,
        long refunded, Throwable failure) {

    /** How one policy's part in a request ended. */
    enum Kind {
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

    /**
     * True if this decision makes an enforced refusal about quota (429): the store said no, or, while it was away,
     * this replica's local share did ({@link Lease#isLocalFallback()}).
     */
    boolean refuses() {
        return !shadow && (kind == Kind.REFUSED || (kind == Kind.DEGRADED && !lease.isAcquired()
                && lease.isLocalFallback()));
    }

    /**
     * True if this decision refuses the request for want of a decision (503, unless a policy refused on
     * quota): none could be had ({@code THROW}), or the failure mode refused ({@code DENY}). Neither is about
     * the client's quota.
     */
    boolean unavailable() {
        return !shadow && (kind == Kind.UNAVAILABLE || (kind == Kind.DEGRADED && !lease.isAcquired()
                && !lease.isLocalFallback()));
    }

    /** This decision after {@code permits} were given back. */
    PolicyDecision refunded(long permits) {
        return new PolicyDecision(policy, partition, lease, kind, shadow, this.permits, permits, failure);
    }
}
