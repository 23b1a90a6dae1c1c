package dev.sluice.limiter.runtime;

import dev.sluice.limiter.algorithm.Verdict;

import dev.sluice.limiter.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/** The leases the runtime hands out. */
final class Leases {
    private Leases() {}

    /** A decision with nothing to release: every grant or refusal except a granted concurrency lease. */
    static class Plain implements Lease {
        private final boolean acquired;
        private final long remaining;
        private final long limit;
        private final long retryAfterMillis;
        private final long resetAfterMillis;
        private final boolean degraded;

        Plain(boolean acquired, long remaining, long limit, long retryAfterMillis, long resetAfterMillis,
                boolean degraded) {
            this.acquired = acquired;
            this.remaining = remaining;
            this.limit = limit;
            this.retryAfterMillis = retryAfterMillis;
            this.resetAfterMillis = resetAfterMillis;
            this.degraded = degraded;
        }

        static Plain of(Verdict v) {
            return new Plain(v.granted(), v.remaining(), v.limit(), v.retryAfterMillis(), v.resetAfterMillis(), false);
        }

        @Override public boolean isAcquired() { return acquired; }
        @Override public long remaining() { return remaining; }
        @Override public long limit() { return limit; }

        @Override
        public Optional<Duration> retryAfter() {
            return acquired || retryAfterMillis < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(retryAfterMillis));
        }

        @Override public Duration resetAfter() { return Duration.ofMillis(Math.max(0, resetAfterMillis)); }
        @Override public boolean isDegraded() { return degraded; }
        @Override public OptionalLong fencingToken() { return OptionalLong.empty(); }
        @Override public void close() {}

        @Override
        public String toString() {
            return (acquired ? "Lease[granted" : "Lease[refused") + (degraded ? ", degraded" : "") + ", remaining="
                    + remaining + ", limit=" + limit + retryAfter().map(d -> ", retryAfter=" + d).orElse("") + "]";
        }
    }
}
