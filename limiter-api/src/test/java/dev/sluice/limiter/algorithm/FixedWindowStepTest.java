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

final class FixedWindowStepTest {
    private static final LimitSpec.FixedWindow SPEC = new LimitSpec.FixedWindow(3, 1_000);

    @Test
    void tryAcquire_overLimit_refusesWithRetryAfterToWindowEnd() {
        Store store = new Store(SPEC);
        long t = 10_250; // windows are aligned to the epoch: this one is [10 000, 11 000)
        for (int i = 0; i < 3; i++) {
            Verdict v = store.acquire(t, 1);
            assertTrue(v.granted());
            assertEquals(2 - i, v.remaining());
        }
        Verdict refused = store.acquire(t + 100, 1);
        assertFalse(refused.granted());
        assertEquals(0, refused.remaining());
        assertEquals(650, refused.retryAfterMillis());
        assertEquals(650, refused.resetAfterMillis());
        assertFalse(store.acquire(10_999, 1).granted());
        assertTrue(store.acquire(11_000, 3).granted());
    }

    @Test
    void tryAcquire_earlierThanLastSeen_doesNotReopenOldWindow() {
        Store store = new Store(new LimitSpec.FixedWindow(1, 1_000));
        assertTrue(store.acquire(1_500, 1).granted());
        assertTrue(store.acquire(2_100, 1).granted()); // window [2000, 3000) is now full
        Verdict back = store.acquire(1_999, 1); // window [1000, 2000) must not reopen
        assertFalse(back.granted());
        assertEquals(900, back.retryAfterMillis(), "measured from the latest time seen, 2100");
    }

    @Test
    void tryAcquire_randomArrivals_neverExceedsLimitInAlignedWindowAndFillsIt() {
        for (long seed = 1; seed <= 5; seed++) {
            Random rnd = new Random(seed);
            long limit = 1 + rnd.nextInt(20);
            long window = 1 + rnd.nextInt(2_000);
            Store store = new Store(new LimitSpec.FixedWindow(limit, window));
            Admissions admitted = new Admissions();
            long now = BASE;
            for (int i = 0; i < 5_000; i++) {
                now += rnd.nextLong(2 * window / limit + 1);
                long permits = StepHarness.randomPermits(rnd, limit);
                Verdict v = store.acquire(now, permits);
                if (v.granted() && permits > 0) {
                    admitted.add(now, permits);
                }
                if (!v.granted()) {
                    long start = now - Math.floorMod(now, window);
                    assertTrue(admitted.in(start, now + 1) + Math.max(1, permits) > limit,
                            "refused although the window had room");
                }
            }
            assertTrue(admitted.maxInAlignedWindow(window) <= limit);
        }
    }

    @Test
    void retryAfter_randomHistories_isExact() {
        StepHarness.assertRetryAfterExact(101, 300, 200,
                rnd -> new LimitSpec.FixedWindow(1 + rnd.nextInt(20), 1 + rnd.nextInt(5_000)),
                spec -> ((LimitSpec.FixedWindow) spec).windowMillis() / spec.limit());
    }
}
