package dev.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

final class LimitSpecTest {
    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration TOO_LONG = Duration.ofDays(366).plusMillis(1);
    private static final Duration SUB_MILLI = Duration.ofNanos(1_500_000);

    /** Asserts an {@link IllegalArgumentException} whose message contains every part. */
    private static void assertRejected(Executable construction, String... parts) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, construction);
        for (String part : parts) {
            assertTrue(e.getMessage().contains(part), "'" + e.getMessage() + "' should mention '" + part + "'");
        }
    }

    @Test
    void factories_validValues_buildRecords() {
        assertEquals(new LimitSpec.FixedWindow(10, 1_000), LimitSpec.fixedWindow(10, SECOND));
        assertEquals(new LimitSpec.SlidingWindow(10, 1_000, 4), LimitSpec.slidingWindow(10, SECOND, 4));
        assertEquals(new LimitSpec.SlidingLog(10, 1_000), LimitSpec.slidingLog(10, SECOND));
        assertEquals(new LimitSpec.SlidingCounter(10, 1_000), LimitSpec.slidingCounter(10, SECOND));
        assertEquals(new LimitSpec.TokenBucket(20, 5, 10_000), LimitSpec.tokenBucket(20, 5, Duration.ofSeconds(10)));
        assertEquals(new LimitSpec.Gcra(5, 1_000, 3), LimitSpec.gcra(5, SECOND, 3));
        assertEquals(new LimitSpec.Concurrency(4, 500), LimitSpec.concurrency(4, Duration.ofMillis(500)));
        assertEquals(10, LimitSpec.slidingWindow(10, SECOND, 4).limit());
        assertEquals(3, LimitSpec.gcra(5, SECOND, 3).limit(), "a GCRA admits at most its burst at once");
    }

    @Test
    void factories_boundaryValues_areAccepted() {
        LimitSpec.fixedWindow(LimitSpec.MAX_LIMIT, Duration.ofMillis(1));
        LimitSpec.fixedWindow(1, LimitSpec.MAX_DURATION);
        LimitSpec.slidingWindow(1, Duration.ofMillis(1_000), 1_000);
        LimitSpec.slidingLog(LimitSpec.MAX_LOG_LIMIT, SECOND);
        LimitSpec.tokenBucket(1, 1, Duration.ofMillis(1));
        LimitSpec.concurrency(LimitSpec.Concurrency.MAX_CONCURRENCY_LIMIT, Duration.ofMillis(30));
    }

    @Test
    void concurrency_withoutLeaseDuration_defaultsToThirtySeconds() {
        assertEquals(Duration.ofSeconds(30), LimitSpec.concurrency(3).leaseDuration());
        assertEquals(LimitSpec.DEFAULT_LEASE_DURATION, LimitSpec.concurrency(3).leaseDuration());
    }

    @Test
    void fixedWindow_zeroLimit_throws() {
        assertRejected(() -> LimitSpec.fixedWindow(0, SECOND), "permitLimit", "1 and 1000000000", "was 0");
    }

    @Test
    void fixedWindow_limitAboveMax_throws() {
        assertRejected(() -> LimitSpec.fixedWindow(LimitSpec.MAX_LIMIT + 1, SECOND), "permitLimit", "1000000000",
                "was 1000000001");
    }

    @Test
    void fixedWindow_zeroWindow_throws() {
        assertRejected(() -> LimitSpec.fixedWindow(1, Duration.ZERO), "window", "PT0.001S", "PT8784H", "was PT0S");
    }

    @Test
    void fixedWindow_negativeWindow_throws() {
        assertRejected(() -> LimitSpec.fixedWindow(1, Duration.ofMillis(-5)), "window", "was PT-0.005S");
    }

    @Test
    void fixedWindow_windowAboveMax_throws() {
        assertRejected(() -> LimitSpec.fixedWindow(1, TOO_LONG), "window", "PT8784H", "was " + TOO_LONG);
    }

    @Test
    void fixedWindow_hugeWindow_throwsWithoutOverflow() {
        assertRejected(() -> LimitSpec.fixedWindow(1, Duration.ofSeconds(Long.MAX_VALUE)), "window", "PT8784H");
    }

    @Test
    void fixedWindow_subMillisecondWindow_throws() {
        assertRejected(() -> LimitSpec.fixedWindow(1, SUB_MILLI), "window", "whole number of milliseconds",
                "was PT0.0015S");
    }

    @Test
    void fixedWindow_windowBelowOneMillisecond_throws() {
        assertRejected(() -> LimitSpec.fixedWindow(1, Duration.ofNanos(999_999)), "window", "PT0.001S");
    }

    @Test
    void fixedWindow_nullWindow_throwsNullPointerNamingIt() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> LimitSpec.fixedWindow(1, null));
        assertEquals("window", e.getMessage());
    }

    @Test
    void fixedWindowRecord_zeroWindowMillis_throws() {
        assertRejected(() -> new LimitSpec.FixedWindow(1, 0), "windowMillis", "1 and 31622400000", "was 0");
    }

    @Test
    void slidingWindow_zeroSegments_throws() {
        assertRejected(() -> LimitSpec.slidingWindow(1, SECOND, 0), "segmentsPerWindow", "1 and 1000", "was 0");
    }

    @Test
    void slidingWindow_segmentsAboveMax_throws() {
        assertRejected(() -> LimitSpec.slidingWindow(1, Duration.ofMillis(1_001_000), 1_001), "segmentsPerWindow",
                "1 and 1000", "was 1001");
    }

    @Test
    void slidingWindow_segmentShorterThanOneMillisecond_throws() {
        assertRejected(() -> LimitSpec.slidingWindow(1, Duration.ofMillis(5), 10), "segmentsPerWindow", "1 and 5",
                "at least 1 ms", "was 10");
    }

    @Test
    void slidingWindow_windowNotDivisibleBySegments_throws() {
        assertRejected(() -> LimitSpec.slidingWindow(1, Duration.ofMillis(1_000), 7), "window", "1000 ms",
                "segmentsPerWindow 7", "divisible");
    }

    @Test
    void slidingWindow_zeroLimit_throws() {
        assertRejected(() -> LimitSpec.slidingWindow(0, SECOND, 10), "permitLimit", "was 0");
    }

    @Test
    void slidingWindow_subMillisecondWindow_throws() {
        assertRejected(() -> LimitSpec.slidingWindow(1, SECOND.plusNanos(1), 1), "window", "whole number");
    }

    @Test
    void slidingLog_limitAboveLogMax_throws() {
        assertRejected(() -> LimitSpec.slidingLog(LimitSpec.MAX_LOG_LIMIT + 1, SECOND), "permitLimit", "1 and 100000",
                "was 100001");
    }

    @Test
    void slidingLog_zeroLimit_throws() {
        assertRejected(() -> LimitSpec.slidingLog(0, SECOND), "permitLimit", "was 0");
    }

    @Test
    void slidingLog_windowAboveMax_throws() {
        assertRejected(() -> LimitSpec.slidingLog(1, TOO_LONG), "window", "PT8784H");
    }

    @Test
    void slidingCounter_zeroLimit_throws() {
        assertRejected(() -> LimitSpec.slidingCounter(0, SECOND), "permitLimit", "was 0");
    }

    @Test
    void slidingCounter_limitTimesWindowOverflows_throws() {
        assertRejected(() -> LimitSpec.slidingCounter(LimitSpec.MAX_LIMIT, LimitSpec.MAX_DURATION), "permitLimit",
                "windowMillis", String.valueOf(LimitSpec.MAX_PRODUCT), "was 1000000000 × 31622400000");
    }

    @Test
    void slidingCounter_zeroWindow_throws() {
        assertRejected(() -> LimitSpec.slidingCounter(1, Duration.ZERO), "window", "was PT0S");
    }

    @Test
    void tokenBucket_zeroTokenLimit_throws() {
        assertRejected(() -> LimitSpec.tokenBucket(0, 1, SECOND), "tokenLimit", "1 and 1000000000", "was 0");
    }

    @Test
    void tokenBucket_zeroTokensPerPeriod_throws() {
        assertRejected(() -> LimitSpec.tokenBucket(1, 0, SECOND), "tokensPerPeriod", "1 and 1000000000", "was 0");
    }

    @Test
    void tokenBucket_tokensPerPeriodAboveMax_throws() {
        assertRejected(() -> LimitSpec.tokenBucket(1, LimitSpec.MAX_LIMIT + 1, SECOND), "tokensPerPeriod",
                "was 1000000001");
    }

    @Test
    void tokenBucket_zeroReplenishmentPeriod_throws() {
        assertRejected(() -> LimitSpec.tokenBucket(1, 1, Duration.ZERO), "replenishmentPeriod", "PT0.001S",
                "was PT0S");
    }

    @Test
    void tokenBucket_subMillisecondReplenishmentPeriod_throws() {
        assertRejected(() -> LimitSpec.tokenBucket(1, 1, SUB_MILLI), "replenishmentPeriod", "whole number");
    }

    @Test
    void tokenBucket_timeToFillOverflows_throws() {
        assertRejected(() -> LimitSpec.tokenBucket(LimitSpec.MAX_LIMIT, 1, LimitSpec.MAX_DURATION),
                "periods to fill", "replenishmentPeriodMillis", String.valueOf(LimitSpec.MAX_PRODUCT));
    }

    @Test
    void gcra_zeroRate_throws() {
        assertRejected(() -> LimitSpec.gcra(0, SECOND, 1), "permitsPerPeriod", "1 and 1000000000", "was 0");
    }

    @Test
    void gcra_zeroBurst_throws() {
        assertRejected(() -> LimitSpec.gcra(1, SECOND, 0), "burst", "1 and 1000000000", "was 0");
    }

    @Test
    void gcra_zeroPeriod_throws() {
        assertRejected(() -> LimitSpec.gcra(1, Duration.ZERO, 1), "period", "was PT0S");
    }

    @Test
    void gcra_subMillisecondPeriod_throws() {
        assertRejected(() -> LimitSpec.gcra(1, SUB_MILLI, 1), "period", "whole number");
    }

    @Test
    void gcra_burstTimesPeriodOverflows_throws() {
        assertRejected(() -> LimitSpec.gcra(1, LimitSpec.MAX_DURATION, LimitSpec.MAX_LIMIT), "burst", "periodMillis",
                String.valueOf(LimitSpec.MAX_PRODUCT));
    }

    @Test
    void concurrency_zeroLimit_throws() {
        assertRejected(() -> LimitSpec.concurrency(0), "permitLimit", "1 and 100000", "was 0");
    }

    @Test
    void concurrency_limitAboveMax_throws() {
        assertRejected(() -> LimitSpec.concurrency(100_001, SECOND), "permitLimit", "1 and 100000", "was 100001");
    }

    @Test
    void concurrency_leaseShorterThanThirtyMilliseconds_throws() {
        assertRejected(() -> LimitSpec.concurrency(1, Duration.ofMillis(29)), "leaseDuration", "PT0.03S",
                "was PT0.029S");
    }

    @Test
    void concurrency_leaseAboveMax_throws() {
        assertRejected(() -> LimitSpec.concurrency(1, TOO_LONG), "leaseDuration", "PT8784H");
    }

    @Test
    void concurrency_subMillisecondLease_throws() {
        assertRejected(() -> LimitSpec.concurrency(1, Duration.ofMillis(100).plusNanos(1)), "leaseDuration",
                "whole number");
    }

    @Test
    void concurrencyRecord_leaseMillisBelowMinimum_throws() {
        assertRejected(() -> new LimitSpec.Concurrency(1, 29), "leaseDurationMillis", "30 and", "was 29");
    }
}
