package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.StepHarness.Store;
import java.util.Random;
import org.junit.jupiter.api.Test;

final class TokenBucketStepTest {
    private static final long DAY = 86_400_000L;

    @Test
    void tryAcquire_emptyBucket_refillsWholePeriodsOnly() {
        Store store = new Store(new LimitSpec.TokenBucket(4, 2, 1_000));
        assertTrue(store.acquire(BASE, 4).granted());
        Verdict refused = store.acquire(BASE + 999, 1);
        assertFalse(refused.granted());
        assertEquals(1, refused.retryAfterMillis());
        Verdict three = store.acquire(BASE + 999, 3);
        assertEquals(1_001, three.retryAfterMillis(), "three tokens take two periods");
        Verdict one = store.acquire(BASE + 1_500, 1);
        assertTrue(one.granted());
        assertEquals(1, one.remaining());
        assertEquals(1_500, one.resetAfterMillis(), "full again at BASE + 3000");
    }

    @Test
    void tryAcquire_randomArrivalsOverADay_neverExceedsSupply() {
        for (long seed = 1; seed <= 3; seed++) {
            Random rnd = new Random(seed);
            long capacity = 1 + rnd.nextInt(50);
            long perPeriod = 1 + rnd.nextInt((int) capacity);
            long period = 1 + rnd.nextInt(60_000);
            Store store = new Store(new LimitSpec.TokenBucket(capacity, perPeriod, period));
            long start = BASE + rnd.nextInt(100_000);
            long now = start;
            long admitted = 0;
            long steps = 0;
            long meanGap = Math.max(1, 2 * period / perPeriod);
            while (now - start < DAY) {
                long permits = StepHarness.randomPermits(rnd, capacity);
                if (store.acquire(now, permits).granted()) {
                    admitted += permits;
                    assertTrue(admitted <= capacity + perPeriod * ((now - start) / period),
                            "seed " + seed + ": " + admitted + " admitted by " + (now - start) + " ms");
                }
                now += rnd.nextLong(meanGap + 1);
                steps++;
            }
            assertTrue(steps > 1_000 && admitted > 0);
        }
    }

    @Test
    void tryAcquire_demandAlwaysAboveSupplyForADay_admitsExactlyTheSupply() {
        for (long seed = 1; seed <= 3; seed++) {
            Random rnd = new Random(seed);
            long capacity = 1 + rnd.nextInt(20);
            long perPeriod = 1 + rnd.nextInt(5);
            long period = 1_000 + rnd.nextInt(3_000);
            Store store = new Store(new LimitSpec.TokenBucket(capacity, perPeriod, period));
            long start = BASE + rnd.nextInt(100_000);
            long end = start + DAY;
            long now = start;
            long admitted = 0;
            // Someone always waits: retry exactly when told, take everything there is.
            while (now <= end) {
                Verdict v = store.acquire(now, 1);
                if (v.granted()) {
                    admitted++;
                    assertTrue(admitted <= capacity + perPeriod * ((now - start) / period));
                } else {
                    assertEquals(capacity + perPeriod * ((now - start) / period), admitted, "seed " + seed);
                    assertTrue(v.retryAfterMillis() > 0);
                    now += v.retryAfterMillis();
                }
            }
            assertEquals(capacity + perPeriod * (DAY / period), admitted, "seed " + seed);
        }
    }

    /** Lost partial periods would show here: a bucket drained at random times, never full, keeps every token. */
    @Test
    void tryAcquire_drainedAtRandomTimesOverADay_admitsExactlyTheSupply() {
        for (long seed = 1; seed <= 5; seed++) {
            Random rnd = new Random(seed);
            long perPeriod = 1 + rnd.nextInt(5);
            long capacity = perPeriod * (2 + rnd.nextInt(4));
            long period = 1 + rnd.nextInt(20_000);
            // A gap of at most (capacity / perPeriod - 1) periods crosses fewer boundaries than it takes to
            // fill the bucket, so demand always exceeds supply.
            long maxGap = period * (capacity / perPeriod - 1);
            Store store = new Store(new LimitSpec.TokenBucket(capacity, perPeriod, period));
            long start = BASE + rnd.nextInt(100_000);
            long now = start;
            long admitted = 0;
            while (now - start < DAY) {
                while (store.acquire(now, 1).granted()) {
                    admitted++;
                }
                assertEquals(capacity + perPeriod * ((now - start) / period), admitted, "seed " + seed);
                now += 1 + rnd.nextLong(maxGap);
            }
        }
    }

    /**
     * A bucket that is full again has no state (it expires), so the refill phase restarts at the next
     * request: the supply stays within {@code capacity + tokensPerPeriod * floor(elapsed / period)}.
     */
    @Test
    void tryAcquire_afterBucketFullAgain_refillPhaseRestartsAtNextRequest() {
        Store store = new Store(new LimitSpec.TokenBucket(1, 1, 1_000));
        assertTrue(store.acquire(BASE, 1).granted());
        assertEquals(BASE + 1_000, Algorithms.expiresAt(store.state));
        assertTrue(store.acquire(BASE + 1_500, 1).granted());
        Verdict refused = store.acquire(BASE + 2_100, 1);
        assertFalse(refused.granted());
        assertEquals(400, refused.retryAfterMillis(), "the next token comes a period after BASE + 1500");
    }

    @Test
    void tryAcquire_drainedEveryMillisecond_admitsExactlyTheSupply() {
        Store store = new Store(new LimitSpec.TokenBucket(7, 3, 997));
        long admitted = 0;
        long elapsed = 600_000;
        for (long t = 0; t <= elapsed; t++) {
            while (store.acquire(BASE + t, 1).granted()) { // every millisecond, take all there is
                admitted++;
            }
            assertEquals(7 + 3 * (t / 997), admitted, "at " + t);
        }
    }

    @Test
    void retryAfter_randomHistories_isExact() {
        StepHarness.assertRetryAfterExact(505, 300, 200, rnd -> {
            long capacity = 1 + rnd.nextInt(20);
            return new LimitSpec.TokenBucket(capacity, 1 + rnd.nextInt((int) capacity + 3), 1 + rnd.nextInt(3_000));
        }, spec -> {
            LimitSpec.TokenBucket s = (LimitSpec.TokenBucket) spec;
            return s.replenishmentPeriodMillis() / s.tokensPerPeriod();
        });
    }
}
