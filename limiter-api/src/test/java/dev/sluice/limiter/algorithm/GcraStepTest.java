package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.StepHarness.Store;
import java.util.Random;
import org.junit.jupiter.api.Test;

final class GcraStepTest {

    @Test
    void tryAcquire_afterBurst_admitsOnePerEmissionInterval() {
        Store store = new Store(new LimitSpec.Gcra(4, 1_000, 2)); // one per 250 ms, burst 2
        assertTrue(store.acquire(BASE, 1).granted());
        assertTrue(store.acquire(BASE, 1).granted());
        Verdict refused = store.acquire(BASE, 1);
        assertFalse(refused.granted());
        assertEquals(250, refused.retryAfterMillis());
        assertFalse(store.acquire(BASE + 249, 1).granted());
        assertTrue(store.acquire(BASE + 250, 1).granted());
        Verdict two = store.acquire(BASE + 250, 2);
        assertEquals(500, two.retryAfterMillis());
    }

    /**
     * Saturated, a GCRA admits exactly {@code burst + elapsed * rate / period}, also when the emission
     * interval is not a whole number of milliseconds. (With a burst of 1 the bucket is full at each
     * fractional theoretical arrival time and a request can only come at the next whole millisecond, so
     * the fraction is lost by design; a burst of 2 or more keeps the theoretical arrival time ahead.)
     */
    @Test
    void tryAcquire_rateNotDividingPeriod_keepsExactRateWithoutDrift() {
        for (long seed = 1; seed <= 6; seed++) {
            Random rnd = new Random(seed);
            long rate = 1 + rnd.nextInt(30);
            long period = 1 + rnd.nextInt(5_000);
            long burst = 2 + rnd.nextInt(20);
            Store store = new Store(new LimitSpec.Gcra(rate, period, burst));
            long start = BASE + rnd.nextInt(10_000);
            long now = start;
            long admitted = 0;
            long end = start + 20_000 * Math.max(1, period / rate);
            while (now <= end) {
                Verdict v = store.acquire(now, 1);
                if (v.granted()) {
                    admitted++;
                    assertTrue(admitted <= burst + (now - start) * rate / period, "seed " + seed + " at " + now);
                } else {
                    assertEquals(burst + (now - start) * rate / period, admitted, "seed " + seed + " at " + now);
                    assertTrue(v.retryAfterMillis() > 0);
                    now += v.retryAfterMillis();
                }
            }
        }
    }

    @Test
    void tryAcquire_randomArrivals_neverExceedsBurstPlusRate() {
        for (long seed = 1; seed <= 4; seed++) {
            Random rnd = new Random(seed);
            long rate = 1 + rnd.nextInt(30);
            long period = 1 + rnd.nextInt(5_000);
            long burst = 1 + rnd.nextInt(20);
            Store store = new Store(new LimitSpec.Gcra(rate, period, burst));
            long start = BASE;
            long now = start;
            long admitted = 0;
            for (int i = 0; i < 20_000; i++) {
                long permits = StepHarness.randomPermits(rnd, burst);
                if (store.acquire(now, permits).granted()) {
                    admitted += permits;
                    assertTrue(admitted <= burst + (now - start) * rate / period);
                }
                now += rnd.nextLong(2 * period / rate + 1);
            }
        }
    }

    @Test
    void retryAfter_randomHistories_isExact() {
        StepHarness.assertRetryAfterExact(606, 300, 200,
                rnd -> new LimitSpec.Gcra(1 + rnd.nextInt(30), 1 + rnd.nextInt(5_000), 1 + rnd.nextInt(20)),
                spec -> {
                    LimitSpec.Gcra s = (LimitSpec.Gcra) spec;
                    return s.periodMillis() / s.permitsPerPeriod();
                });
    }
}
