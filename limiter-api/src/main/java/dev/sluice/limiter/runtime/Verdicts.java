package dev.sluice.limiter.runtime;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import java.util.Optional;

/** The leases the runtime hands out, other than a granted concurrency lease: {@link Lease}'s values. */
final class Verdicts {
    private Verdicts() {}

    /** A store's decision as a lease with nothing to release ({@link Verdict#NO_RETRY}: no retry-after). */
    static Lease asLease(Verdict v) {
        Duration resetAfter = Duration.ofMillis(Math.max(0, v.resetAfterMillis()));
        if (v.granted()) {
            return Lease.granted(v.remaining(), v.limit(), resetAfter);
        }
        return Lease.refused(v.remaining(), v.limit(), v.retryAfterMillis() < 0 ? Optional.empty()
                : Optional.of(Duration.ofMillis(v.retryAfterMillis())), resetAfter);
    }
}
