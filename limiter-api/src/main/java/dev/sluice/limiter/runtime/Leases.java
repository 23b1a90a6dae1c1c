package dev.sluice.limiter.runtime;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/** The leases the runtime hands out, other than a granted concurrency lease. */
final class Leases {
    private Leases() {}

    /**
     * A decision with nothing to release, built from the runtime's milliseconds ({@link Verdict#NO_RETRY}:
     * none) as one of {@link Lease}'s values. A degraded decision knows nothing of the store, so only
     * {@code acquired} and {@code limit} count for it.
     */
    static final class Plain implements Lease {
        private final Lease value;

        Plain(boolean acquired, long remaining, long limit, long retryAfterMillis, long resetAfterMillis,
                boolean degraded) {
            Duration resetAfter = Duration.ofMillis(Math.max(0, resetAfterMillis));
            if (degraded) {
                value = Lease.degraded(acquired, limit);
            } else if (acquired) {
                value = Lease.granted(remaining, limit, resetAfter);
            } else {
                value = Lease.refused(remaining, limit,
                        retryAfterMillis < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(retryAfterMillis)),
                        resetAfter);
            }
        }

        static Plain of(Verdict v) {
            return new Plain(v.granted(), v.remaining(), v.limit(), v.retryAfterMillis(), v.resetAfterMillis(), false);
        }

        @Override public boolean isAcquired() { return value.isAcquired(); }
        @Override public long remaining() { return value.remaining(); }
        @Override public long limit() { return value.limit(); }
        @Override public Optional<Duration> retryAfter() { return value.retryAfter(); }
        @Override public Duration resetAfter() { return value.resetAfter(); }
        @Override public boolean isDegraded() { return value.isDegraded(); }
        @Override public OptionalLong fencingToken() { return OptionalLong.empty(); }
        @Override public void close() {}
        @Override public String toString() { return value.toString(); }
    }
}
