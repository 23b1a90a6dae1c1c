package dev.sluice.prefilter;

import dev.sluice.limiter.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/** The leases a pre-filter hands out. */
final class PrefilterLeases {
    private PrefilterLeases() {}

    /** A decision made in this process: nothing to release. */
    static final class Local implements PrefilterLease {
        private final boolean acquired;
        private final long remaining;
        private final long limit;
        private final long retryAfterMillis;
        private final long resetAfterMillis;

        Local(boolean acquired, long remaining, long limit, long retryAfterMillis, long resetAfterMillis) {
            this.acquired = acquired;
            this.remaining = remaining;
            this.limit = limit;
            this.retryAfterMillis = retryAfterMillis;
            this.resetAfterMillis = resetAfterMillis;
        }

        @Override public boolean isLocal() { return true; }
        @Override public boolean isAcquired() { return acquired; }
        @Override public long remaining() { return remaining; }
        @Override public long limit() { return limit; }

        @Override
        public Optional<Duration> retryAfter() {
            return acquired || retryAfterMillis < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(retryAfterMillis));
        }

        @Override public Duration resetAfter() { return Duration.ofMillis(Math.max(0, resetAfterMillis)); }
        @Override public boolean isDegraded() { return false; }
        @Override public OptionalLong fencingToken() { return OptionalLong.empty(); }
        @Override public void close() {}

        @Override
        public String toString() {
            return (acquired ? "Lease[granted" : "Lease[refused") + ", local, remaining=" + remaining + ", limit="
                    + limit + retryAfter().map(d -> ", retryAfter=" + d).orElse("") + "]";
        }
    }

    /** The store's decision, as the wrapped limiter returned it; closing it closes that lease. */
    static final class Store implements PrefilterLease {
        private final Lease lease;
        private final long remaining;

        Store(Lease lease, long remaining) {
            this.lease = lease;
            this.remaining = remaining;
        }

        Store(Lease lease) {
            this(lease, lease.remaining());
        }

        @Override public boolean isLocal() { return false; }
        @Override public boolean isAcquired() { return lease.isAcquired(); }
        @Override public long remaining() { return remaining; }
        @Override public long limit() { return lease.limit(); }
        @Override public Optional<Duration> retryAfter() { return lease.retryAfter(); }
        @Override public Duration resetAfter() { return lease.resetAfter(); }
        @Override public boolean isDegraded() { return lease.isDegraded(); }
        @Override public OptionalLong fencingToken() { return lease.fencingToken(); }
        @Override public void close() { lease.close(); }

        @Override
        public String toString() {
            return lease + (remaining != lease.remaining() ? " (with local allowance, remaining=" + remaining + ")" : "");
        }
    }
}
