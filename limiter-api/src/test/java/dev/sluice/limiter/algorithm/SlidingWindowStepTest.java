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

final class SlidingWindowStepTest {

    @Test
    void tryAcquire_segmentLeavesWindow_returnsItsPermits() {
        Store store = new Store(new LimitSpec.SlidingWindow(4, 1_000, 4)); // segments of 250 ms
        assertTrue(store.acquire(10_000, 1).granted()); // segment [10000, 10250)
        assertTrue(store.acquire(10_300, 3).granted()); // segment [10250, 10500)
        Verdict refused = store.acquire(10_900, 1);
        assertFalse(refused.granted());
        assertEquals(100, refused.retryAfterMillis(), "the first segment leaves at 11000");
        assertTrue(store.copy().acquire(11_000, 1).granted());
        Verdict three = store.acquire(11_000, 3);
        assertFalse(three.granted());
        assertEquals(250, three.retryAfterMillis(), "three permits need the second segment gone, at 11250");
    }

    @Test
    void tryAcquire_randomArrivals_holdsDocumentedErrorBound() {
        for (long seed = 1; seed <= 6; seed++) {
            Random rnd = new Random(seed);
            int segments = 2 + rnd.nextInt(10);
            long segment = 1 + rnd.nextInt(200);
            long window = segments * segment;
            long limit = 1 + rnd.nextInt(20);
            Store store = new Store(new LimitSpec.SlidingWindow(limit, window, segments));
            Admissions admitted = new Admissions();
            long now = BASE;
            for (int i = 0; i < 8_000; i++) {
                now += rnd.nextLong(2 * window / limit + 1);
                long permits = StepHarness.randomPermits(rnd, limit);
                Verdict v = store.acquire(now, permits);
                if (v.granted() && permits > 0) {
                    admitted.add(now, permits);
                }
                if (!v.granted()) {
                    long oldest = (Math.floorDiv(now, segment) - segments + 1) * segment;
                    assertTrue(admitted.in(oldest, now + 1) + Math.max(1, permits) > limit,
                            "refused although the window's segments had room");
                }
            }
            String what = "seed " + seed + ", " + segments + " x " + segment + " ms, limit " + limit;
            assertTrue(admitted.maxInAnyInterval(window - segment) <= limit, what);
            assertTrue(admitted.maxInAnyInterval(window) <= limit + admitted.maxInAlignedWindow(segment), what);
            assertTrue(admitted.total() > (now - BASE) / window * limit / 2, what + ": too few admissions");
        }
    }

    @Test
    void tryAcquire_stateWithOtherSegmentCount_countsAllItsPermitsConservatively() {
        long[] state = Algorithms.acquire(new LimitSpec.SlidingWindow(10, 1_000, 10), null, 10_000, 6).state();
        Store store = new Store(new LimitSpec.SlidingWindow(10, 1_000, 4), state);
        assertFalse(store.acquire(10_500, 5).granted());
        assertTrue(store.acquire(10_500, 4).granted());
        assertFalse(store.acquire(10_500, 1).granted());
    }

    @Test
    void retryAfter_randomHistories_isExact() {
        StepHarness.assertRetryAfterExact(202, 300, 200, rnd -> {
            int segments = 1 + rnd.nextInt(10);
            return new LimitSpec.SlidingWindow(1 + rnd.nextInt(20), segments * (1L + rnd.nextInt(500)), segments);
        }, spec -> ((LimitSpec.SlidingWindow) spec).windowMillis() / spec.limit());
    }
}
