package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.StepHarness.Admissions;
import dev.sluice.limiter.algorithm.StepHarness.Store;
import java.util.Random;
import org.junit.jupiter.api.Test;

final class SlidingCounterStepTest {

    @Test
    void tryAcquire_previousWindowWeightedByOverlap() {
        Store store = new Store(new LimitSpec.SlidingCounter(10, 1_000));
        assertTrue(store.acquire(10_000, 10).granted());
        // At 11 250, 75 % of the previous window still overlaps: ceil(10 * 0.75) = 8 count.
        Verdict probe = store.acquire(11_250, 0);
        assertTrue(probe.granted());
        assertEquals(2, probe.remaining());
        assertTrue(store.acquire(11_250, 2).granted());
        Verdict refused = store.acquire(11_250, 1);
        assertFalse(refused.granted());
        assertEquals(50, refused.retryAfterMillis(), "ceil(10 * 0.7) + 2 + 1 = 10 at 11 300");
    }

    @Test
    void tryAcquire_randomArrivals_holdsDocumentedErrorBound() {
        for (long seed = 1; seed <= 6; seed++) {
            Random rnd = new Random(seed);
            long limit = 1 + rnd.nextInt(rnd.nextBoolean() ? 10 : 500);
            long window = 1 + rnd.nextInt(3_000);
            Store store = new Store(new LimitSpec.SlidingCounter(limit, window));
            Admissions admitted = new Admissions();
            long now = BASE;
            for (int i = 0; i < 8_000; i++) {
                now += rnd.nextLong(2 * window / limit + 1);
                long permits = StepHarness.randomPermits(rnd, Math.min(limit, 20));
                Verdict v = store.acquire(now, permits);
                if (v.granted() && permits > 0) {
                    admitted.add(now, permits);
                }
            }
            String what = "seed " + seed + ", limit " + limit + " per " + window + " ms";
            assertTrue(admitted.maxInAlignedWindow(window) <= limit, what);
            assertTrue(admitted.maxInAnyInterval(window) < 2 * limit, what);
            assertTrue(admitted.total() > (now - BASE) / window * limit / 4, what + ": too few admissions");
        }
    }

    @Test
    void retryAfter_randomHistories_isExact() {
        StepHarness.assertRetryAfterExact(404, 300, 200,
                rnd -> new LimitSpec.SlidingCounter(1 + rnd.nextInt(rnd.nextBoolean() ? 10 : 300),
                        1 + rnd.nextInt(5_000)),
                spec -> ((LimitSpec.SlidingCounter) spec).windowMillis() / spec.limit());
    }
}
