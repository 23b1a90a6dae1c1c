package dev.sluice.prefilter;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.Settlement;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/** The leases a pre-filter hands out: the store's, or a {@link Lease} value made here, each saying which. */
final class PrefilterLeases {
    private PrefilterLeases() {}

    /** The store's decision as the wrapped limiter returned it; closing it closes that lease. */
    static PrefilterLease store(Lease lease) {
        return new Decided(lease, lease.remaining(), false, true);
    }

    /**
     * The store's grant of a refill; {@code remaining} counts what this process now holds too. Not refundable:
     * the store's grant is the whole refill, most of it now this process's allowance.
     */
    static PrefilterLease store(Lease lease, long remaining) {
        return new Decided(lease, remaining, false, false);
    }

    /** A grant from this process's allowance. */
    static PrefilterLease localGrant(long remaining, long limit, long resetAfterNanos) {
        return local(Lease.granted(remaining, limit, ceilMillis(resetAfterNanos)));
    }

    /** A refusal from this process's cache of the store's refusals. */
    static PrefilterLease localRefusal(long remaining, long limit, long retryAfterNanos, long resetAfterNanos) {
        return local(Lease.refused(remaining, limit, Optional.of(ceilMillis(retryAfterNanos)),
                ceilMillis(resetAfterNanos)));
    }

    private static PrefilterLease local(Lease value) {
        return new Decided(value, value.remaining(), true, false);
    }

    /** Whole milliseconds, rounded up (as the store counts), never negative. */
    private static Duration ceilMillis(long nanos) {
        return Duration.ofMillis(nanos <= 0 ? 0 : (nanos + 999_999) / 1_000_000);
    }

    private static final class Decided implements PrefilterLease {
        private final Lease lease;
        private final long remaining;
        private final boolean local;
        private final boolean refundable;

        Decided(Lease lease, long remaining, boolean local, boolean refundable) {
            this.lease = lease;
            this.remaining = remaining;
            this.local = local;
            this.refundable = refundable;
        }

        @Override public boolean isLocal() { return local; }
        @Override public boolean isAcquired() { return lease.isAcquired(); }
        @Override public long remaining() { return remaining; }
        @Override public long limit() { return lease.limit(); }
        @Override public Optional<Duration> retryAfter() { return lease.retryAfter(); }
        @Override public Duration resetAfter() { return lease.resetAfter(); }
        @Override public boolean isDegraded() { return lease.isDegraded(); }
        @Override public boolean isLocalFallback() { return lease.isLocalFallback(); }
        @Override public OptionalLong fencingToken() { return lease.fencingToken(); }
        @Override public void close() { lease.close(); }

        /** The store's own lease refunds; an allowance's permits stay taken (stricter, never looser). */
        @Override
        public CompletableFuture<Boolean> refund() {
            return refundable ? lease.refund() : CompletableFuture.completedFuture(false);
        }

        /** The store's own lease settles; an allowance's permits were taken from the store already, and stay so. */
        @Override
        public CompletableFuture<Settlement> settle(long cost) {
            if (refundable) {
                return lease.settle(cost);
            }
            Settlement.checkCost(cost, null);
            return CompletableFuture.completedFuture(new Settlement(Settlement.Status.NOTHING_HELD, 0, cost, 0));
        }

        @Override
        public String toString() {
            if (local) {
                return lease + " (local)";
            }
            return remaining == lease.remaining() ? lease.toString()
                    : lease + " (with local allowance, remaining=" + remaining + ")";
        }
    }
}
