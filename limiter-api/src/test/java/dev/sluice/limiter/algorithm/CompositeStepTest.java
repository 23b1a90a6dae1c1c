package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

final class CompositeStepTest {
    /** 3 per second and 5 per minute, windows aligned to the epoch. */
    private static final LimitSpec PER_SECOND_AND_MINUTE = LimitSpec.allOf(
            LimitSpec.fixedWindow(3, Duration.ofSeconds(1)), LimitSpec.fixedWindow(5, Duration.ofMinutes(1)));
    private static final long MINUTE = 60_000 * (BASE / 60_000 + 1); // a minute boundary after BASE

    @Test
    void acquire_everyComponentGrants_takesFromAll() {
        StepHarness.Store store = new StepHarness.Store(PER_SECOND_AND_MINUTE);
        for (int i = 0; i < 3; i++) {
            assertTrue(store.acquire(MINUTE, 1).granted());
        }
        Verdict refusedBySecond = store.acquire(MINUTE, 1);
        assertFalse(refusedBySecond.granted());
        assertEquals(1_000, refusedBySecond.retryAfterMillis(), "the per-second window ends first");
        assertEquals(0, refusedBySecond.remaining(), "remaining is the smallest of the components'");
        assertTrue(store.acquire(MINUTE + 1_000, 2).granted());
        Verdict refusedByMinute = store.acquire(MINUTE + 1_000, 1);
        assertFalse(refusedByMinute.granted(), "5 per minute are spent, though the second has room");
        assertEquals(59_000, refusedByMinute.retryAfterMillis(), "the latest among the refusing components");
        assertEquals(59_000, refusedByMinute.resetAfterMillis(), "reset is the longest");
    }

    /** A refusal by one component takes nothing from the others: the state is the very same array. */
    @Test
    void acquire_oneComponentRefuses_consumesNothingAnywhere() {
        StepHarness.Store store = new StepHarness.Store(LimitSpec.allOf(
                LimitSpec.tokenBucket(10, 1, Duration.ofSeconds(1)), LimitSpec.slidingLog(2, Duration.ofSeconds(10))));
        assertTrue(store.acquire(BASE, 2).granted());
        long[] before = store.state;
        Verdict refused = store.acquire(BASE + 5, 1);
        assertFalse(refused.granted());
        assertSame(before, refused.state(), "nothing written");
        assertEquals(8, Algorithms.acquire(LimitSpec.tokenBucket(10, 1, Duration.ofSeconds(1)),
                CompositeStep.parts(store.state, 2)[0], BASE + 5, 0).remaining(), "the bucket kept its 8 tokens");
    }

    @Test
    void probe_reportsWhetherEveryComponentHasAPermitAndWritesNothing() {
        StepHarness.Store store = new StepHarness.Store(PER_SECOND_AND_MINUTE);
        Verdict probe = store.acquire(MINUTE, 0);
        assertTrue(probe.granted());
        assertEquals(3, probe.remaining());
        assertEquals(null, store.state);
    }

    /** Over random composites and histories, every refusal's retryAfter is exact, as for one algorithm. */
    @Test
    void retryAfter_randomComposites_isExact() {
        StepHarness.assertRetryAfterExact(16, 300, 200, CompositeStepTest::randomComposite,
                spec -> Math.max(1, StepHarness.horizon(spec) / Math.max(1, spec.limit()) / 2));
    }

    /** Random histories: no component ever admits more than it would alone, and the composite is their conjunction. */
    @Test
    void acquire_randomHistories_grantsExactlyWhenEveryComponentAloneWould() {
        Random rnd = new Random(3);
        for (int s = 0; s < 200; s++) {
            LimitSpec.AllOf spec = (LimitSpec.AllOf) randomComposite(rnd);
            StepHarness.Store composite = new StepHarness.Store(spec);
            List<StepHarness.Store> alone = new ArrayList<>();
            spec.components().forEach(c -> alone.add(new StepHarness.Store(c)));
            long now = BASE + rnd.nextInt(1_000_000);
            long gap = Math.max(1, StepHarness.horizon(spec) / spec.limit());
            for (int i = 0; i < 200; i++) {
                now += rnd.nextLong(gap + 1);
                long permits = StepHarness.randomPermits(rnd, spec.limit());
                boolean every = true;
                for (StepHarness.Store a : alone) {
                    every &= Algorithms.acquire(a.spec, a.state, now, permits).granted();
                }
                Verdict v = composite.acquire(now, permits);
                assertEquals(every, v.granted(), spec + " at step " + i);
                if (v.granted() && permits > 0) {
                    for (StepHarness.Store a : alone) {
                        assertTrue(a.acquire(now, permits).granted());
                    }
                    long[][] parts = CompositeStep.parts(composite.state, spec.components().size());
                    for (int c = 0; c < parts.length; c++) {
                        assertArrayEquals(alone.get(c).state, parts[c], "component " + c + " holds what it would alone");
                    }
                }
            }
        }
    }

    @Test
    void allOf_badComponents_failNamingTheIndex() {
        LimitSpec rate = LimitSpec.fixedWindow(1, Duration.ofSeconds(1));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LimitSpec.allOf(rate)).getMessage()
                .contains("2 to 8 components, was 1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LimitSpec.allOf(rate, LimitSpec.concurrency(2)))
                .getMessage().startsWith("component 1 is a concurrency limit"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> LimitSpec.allOf(LimitSpec.allOf(rate, rate), rate)).getMessage().startsWith("component 0 is itself"));
        LimitSpec[] nine = new LimitSpec[9];
        java.util.Arrays.fill(nine, rate);
        assertThrows(IllegalArgumentException.class, () -> LimitSpec.allOf(nine));
        assertThrows(NullPointerException.class, () -> LimitSpec.allOf(rate, null));
        assertEquals(1, LimitSpec.allOf(rate, LimitSpec.fixedWindow(10, Duration.ofMinutes(1))).limit(),
                "one request may ask for at most the smallest component limit");
    }

    /** A key holding another shape stays a clear error: another algorithm, or a composite of another size. */
    @Test
    void acquire_keyHoldsAnotherShape_isRefusedWithIllegalState() {
        long[] composite = Algorithms.acquire(PER_SECOND_AND_MINUTE, null, BASE, 1).state();
        assertThrows(IllegalStateException.class,
                () -> Algorithms.acquire(LimitSpec.fixedWindow(3, Duration.ofSeconds(1)), composite, BASE, 1));
        LimitSpec three = LimitSpec.allOf(LimitSpec.fixedWindow(3, Duration.ofSeconds(1)),
                LimitSpec.fixedWindow(5, Duration.ofMinutes(1)), LimitSpec.fixedWindow(50, Duration.ofHours(1)));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Algorithms.acquire(three, composite, BASE, 1));
        assertTrue(e.getMessage().contains("composite of 2 components, not 3"), e.getMessage());
        long[] window = Algorithms.acquire(LimitSpec.fixedWindow(3, Duration.ofSeconds(1)), null, BASE, 1).state();
        assertThrows(IllegalStateException.class, () -> Algorithms.acquire(PER_SECOND_AND_MINUTE, window, BASE, 1));
    }

    /** After a split, each component keeps the consumption of both sides. */
    @Test
    void merge_twoSides_keepsEachComponentsConsumption() {
        long[] a = null;
        long[] b = null;
        for (int i = 0; i < 2; i++) {
            a = Algorithms.acquire(PER_SECOND_AND_MINUTE, a, MINUTE + 2_000, 1).state();
        }
        b = Algorithms.acquire(PER_SECOND_AND_MINUTE, b, MINUTE + 5_000, 1).state();
        long[] merged = StateMerge.merge(a, b);
        // The minute holds max(2, 1) = 2 at least: 3 more fit, not 4.
        long[] m = merged;
        for (int i = 0; i < 3; i++) {
            Verdict v = Algorithms.acquire(PER_SECOND_AND_MINUTE, m, MINUTE + 10_000 + i * 1_000, 1);
            assertTrue(v.granted(), "grant " + i);
            m = v.state();
        }
        assertFalse(Algorithms.acquire(PER_SECOND_AND_MINUTE, m, MINUTE + 20_000, 1).granted());
    }

    static LimitSpec randomComposite(Random rnd) {
        int n = 2 + rnd.nextInt(2);
        LimitSpec[] parts = new LimitSpec[n];
        for (int i = 0; i < n; i++) {
            long limit = 1 + rnd.nextInt(8);
            long window = 10 + rnd.nextInt(2_000);
            parts[i] = switch (rnd.nextInt(6)) {
                case 0 -> LimitSpec.fixedWindow(limit, Duration.ofMillis(window));
                case 1 -> LimitSpec.slidingWindow(limit, Duration.ofMillis(window - window % 5), 5);
                case 2 -> LimitSpec.slidingLog(limit, Duration.ofMillis(window));
                case 3 -> LimitSpec.slidingCounter(limit, Duration.ofMillis(window));
                case 4 -> LimitSpec.tokenBucket(limit, 1 + rnd.nextInt((int) limit), Duration.ofMillis(window));
                default -> LimitSpec.gcra(1 + rnd.nextInt(5), Duration.ofMillis(window), limit);
            };
        }
        return LimitSpec.allOf(parts);
    }
}
