package dev.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

final class TickerTest {

    @Test
    void toNanosSaturated_ordinaryDuration_isExact() {
        assertEquals(1_500_000L, Ticker.toNanosSaturated(Duration.ofMillis(1).plusNanos(500_000)));
    }

    @Test
    void toNanosSaturated_tooLongForALong_saturatesAtAQuarter() {
        assertEquals(Long.MAX_VALUE / 4, Ticker.toNanosSaturated(Duration.ofSeconds(Long.MAX_VALUE)));
    }

    @Test
    void toNanosSaturated_fitsALongButLongerThanTheBound_saturatesToo() {
        assertEquals(Long.MAX_VALUE / 4, Ticker.toNanosSaturated(Duration.ofDays(200 * 365L)));
    }

    @Test
    void toNanosSaturated_negativeTooLong_saturatesBelow() {
        assertEquals(-(Long.MAX_VALUE / 4), Ticker.toNanosSaturated(Duration.ofSeconds(Long.MIN_VALUE)));
    }
}
