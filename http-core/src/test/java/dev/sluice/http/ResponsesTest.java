package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** What the {@code RateLimit} headers say in the cases no request through a server shows on its own. */
final class ResponsesTest {

    /** The cases no request shows on its own: a full bucket, a whole burst, nothing known. */
    @Test
    void untilMoreQuota_edges() {
        assertEquals(-1, Responses.untilMoreQuotaMillis(LimitSpec.tokenBucket(10, 2, Duration.ofSeconds(3)),
                lease(10, 0), 1, 10));
        assertEquals(-1, Responses.untilMoreQuotaMillis(LimitSpec.gcra(10, Duration.ofMinutes(1), 5), lease(5, 0), 1, 5));
        assertEquals(-1, Responses.untilMoreQuotaMillis(LimitSpec.fixedWindow(10, Duration.ofMinutes(1)), lease(10, 0),
                1, 10));
        assertEquals(-1, Responses.untilMoreQuotaMillis(LimitSpec.slidingWindow(10, Duration.ofMinutes(1), 6),
                lease(10, 0), 1, 10));
        assertEquals(-1, Responses.untilMoreQuotaMillis(LimitSpec.slidingLog(10, Duration.ofMinutes(1)), lease(3, 9),
                1, 3));
        assertEquals(-1, Responses.untilMoreQuotaMillis(LimitSpec.concurrency(10), lease(3, 9), 1, 3));
    }

    /** A granted lease as a probe would answer it: {@code remaining} left, {@code resetMillis} to full. */
    private static Lease lease(long remaining, long resetMillis) {
        return new Lease() {
            @Override public boolean isAcquired() { return true; }
            @Override public long remaining() { return remaining; }
            @Override public long limit() { return remaining; }
            @Override public Optional<Duration> retryAfter() { return Optional.empty(); }
            @Override public Duration resetAfter() { return Duration.ofMillis(resetMillis); }
            @Override public boolean isDegraded() { return false; }
            @Override public OptionalLong fencingToken() { return OptionalLong.empty(); }
            @Override public void close() {}
        };
    }
}
