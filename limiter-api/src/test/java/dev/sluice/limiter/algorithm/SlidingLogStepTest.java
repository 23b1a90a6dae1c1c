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

final class SlidingLogStepTest {

    @Test
    void tryAcquire_overLimit_refusesUntilOldestEntryExpires() {
        Store store = new Store(new LimitSpec.SlidingLog(3, 1_000));
        assertTrue(store.acquire(10_000, 1).granted());
        assertTrue(store.acquire(10_400, 2).granted());
        Verdict refused = store.acquire(10_600, 1);
        assertFalse(refused.granted());
        assertEquals(400, refused.retryAfterMillis());
        Verdict two = store.acquire(10_600, 2);
        assertEquals(800, two.retryAfterMillis());
        assertTrue(store.acquire(11_000, 1).granted());
    }

    @Test
    void tryAcquire_randomArrivals_neverExceedsLimitInAnyWindowAndRefusesOnlyWhenFull() {
        for (long seed = 1; seed <= 8; seed++) {
            Random rnd = new Random(seed);
            long limit = 1 + rnd.nextInt(30);
            long window = 1 + rnd.nextInt(3_000);
            Store store = new Store(new LimitSpec.SlidingLog(limit, window));
            Admissions admitted = new Admissions();
            long now = BASE;
            int refusals = 0;
            for (int i = 0; i < 5_000; i++) {
                now += rnd.nextLong(2 * window / limit + 1);
                long permits = StepHarness.randomPermits(rnd, limit);
                Verdict v = store.acquire(now, permits);
                if (v.granted() && permits > 0) {
                    admitted.add(now, permits);
                } else if (!v.granted()) {
                    refusals++;
                    assertTrue(admitted.in(now - window + 1, now + 1) + Math.max(1, permits) > limit,
                            "refused although the last window had room");
                }
            }
            String what = "seed " + seed + ", limit " + limit + " per " + window + " ms";
            assertTrue(admitted.maxInAnyInterval(window) <= limit, what);
            assertTrue(refusals > 100, what + ": demand did not saturate");
        }
    }

    @Test
    void tryAcquire_requestEveryMillisecond_admitsExactlyLimitInEveryWindow() {
        for (long seed = 1; seed <= 4; seed++) {
            Random rnd = new Random(seed);
            long limit = 1 + rnd.nextInt(50);
            long window = limit + rnd.nextInt(500);
            Store store = new Store(new LimitSpec.SlidingLog(limit, window));
            Admissions admitted = new Admissions();
            long end = BASE + 20 * window;
            for (long t = BASE; t < end; t++) {
                if (store.acquire(t, 1).granted()) {
                    admitted.add(t, 1);
                }
            }
            for (long t = BASE; t + window <= end; t += 1 + rnd.nextInt(7)) {
                assertEquals(limit, admitted.in(t, t + window), "window at " + t);
            }
        }
    }

    @Test
    void retryAfter_randomHistories_isExact() {
        StepHarness.assertRetryAfterExact(303, 300, 200,
                rnd -> new LimitSpec.SlidingLog(1 + rnd.nextInt(20), 1 + rnd.nextInt(5_000)),
                spec -> ((LimitSpec.SlidingLog) spec).windowMillis() / spec.limit());
    }
}
