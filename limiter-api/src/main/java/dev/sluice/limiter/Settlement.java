package dev.sluice.limiter;

import java.util.Objects;

/**
 * What settling a lease with the real cost of its work did ({@link Lease#settle(long)}).
 *
 * @param status whether the store applied it, and if not why
 * @param reserved the permits the lease reserved when it was granted; 0 for a lease that held nothing
 * @param cost the real cost it was settled with
 * @param debt after a cost above the reservation, what the key owes (the part its budget could not pay, repaid
 *     before any later grant); 0 otherwise
 */
public record Settlement(Status status, long reserved, long cost, long debt) {

    /** How a settlement ended. */
    public enum Status {
        /**
         * Applied by the store, once however often the store ran it: a lower cost gave back the difference by the
         * algorithm's refund rule (what the grant still holds), a higher one charged the extra, owing what the
         * budget could not pay. Also a cost equal to the reservation, which sends nothing.
         */
        SETTLED,
        /**
         * Nothing held in the store to settle, nothing sent: a refused or degraded lease, a value lease
         * ({@link Lease#granted}), a grant made on an overflow cell, or a pre-filter's local allowance.
         */
        NOTHING_HELD,
        /**
         * A concurrency lease: it holds permits for a time, not a cost; {@linkplain Lease#close() close} it when the
         * work is done.
         */
        UNSUPPORTED,
        /**
         * The store gave no answer (after the limiter's retries): the reservation stands. A lower cost leaves the
         * difference spent (stricter); a higher cost's extra is not charged.
         */
        FAILED
    }

    public Settlement {
        Objects.requireNonNull(status, "status");
    }

    /** True if the store applied the settlement ({@link Status#SETTLED}). */
    public boolean isSettled() {
        return status == Status.SETTLED;
    }

    /**
     * Checks a settlement's cost: between 0 and {@link LimitSpec#MAX_LIMIT}. A cost above the limit is real (a call
     * that used more tokens than a minute allows): what the budget cannot pay becomes the key's debt.
     *
     * @param limiter the limiter's name for the message, or {@code null}
     * @throws IllegalArgumentException naming the value and the bound
     */
    public static long checkCost(long cost, String limiter) {
        if (cost < 0 || cost > LimitSpec.MAX_LIMIT) {
            throw new IllegalArgumentException("cost must be between 0 and " + LimitSpec.MAX_LIMIT + " (settling a"
                    + " lease of " + (limiter == null ? "this limiter" : "'" + limiter + "'") + "), was " + cost);
        }
        return cost;
    }
}
