package dev.sluice.prefilter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

final class PrefilterOptionsTest {

    @Test
    void defaults_areTheExactRefusalCache() {
        PrefilterOptions d = PrefilterOptions.defaults();
        assertEquals(PrefilterMode.REFUSAL_CACHE, d.mode());
        assertEquals(100_000, d.maximumSize());
        assertEquals(0.1, d.maxBatchFraction());
        assertEquals(Duration.ofMillis(1), d.clockMargin());
        assertTrue(d.listeners().isEmpty());
    }

    @Test
    void toBuilder_keepsEverySetting() {
        PrefilterOptions o = PrefilterOptions.builder().mode(PrefilterMode.ALLOWANCE).maximumSize(7)
                .maxBatchFraction(0.5).refillInterval(Duration.ofMillis(20)).maxHold(Duration.ofMillis(300))
                .clockMargin(Duration.ZERO).listener(new PrefilterListener() {}).build();
        assertEquals(o.toString(), o.toBuilder().build().toString());
    }

    @Test
    void maximumSize_belowOne_throws() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PrefilterOptions.builder().maximumSize(0));
        assertTrue(e.getMessage().contains("maximumSize must be at least 1, was 0"), e.getMessage());
    }

    @Test
    void maxBatchFraction_outOfRange_throws() {
        assertThrows(IllegalArgumentException.class, () -> PrefilterOptions.builder().maxBatchFraction(0));
        assertThrows(IllegalArgumentException.class, () -> PrefilterOptions.builder().maxBatchFraction(1.5));
        assertThrows(IllegalArgumentException.class, () -> PrefilterOptions.builder().maxBatchFraction(Double.NaN));
    }

    @Test
    void clockMargin_negative_throws() {
        assertThrows(IllegalArgumentException.class, () -> PrefilterOptions.builder().clockMargin(Duration.ofMillis(-1)));
    }

    @Test
    void maxHold_zero_throws() {
        assertThrows(IllegalArgumentException.class, () -> PrefilterOptions.builder().maxHold(Duration.ZERO));
    }

    @Test
    void refillInterval_tooLong_throws() {
        assertThrows(IllegalArgumentException.class, () -> PrefilterOptions.builder().refillInterval(Duration.ofHours(1)));
    }

    @Test
    void nulls_throwNullPointerException() {
        assertThrows(NullPointerException.class, () -> PrefilterOptions.builder().ticker(null));
        assertThrows(NullPointerException.class, () -> PrefilterOptions.builder().mode(null));
        assertThrows(NullPointerException.class, () -> LocalPrefilter.wrap((dev.sluice.limiter.RateLimiter) null,
                PrefilterOptions.defaults()));
    }
}
