package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import org.junit.jupiter.api.Test;

/** The concurrency merge across its two layouts, and the nonces it must keep for retries. */
final class StateMergeTest {
    private static final LimitSpec.Concurrency SPEC = new LimitSpec.Concurrency(5, 60_000);

    private static long held(long[] state, long now) {
        return SPEC.permitLimit() - Algorithms.acquire(SPEC, state, now, 0).remaining();
    }

    @Test
    void merge_layout1AndLayout2_keepsTheLeasesOfBoth() {
        long oldToken = BASE << ConcurrencyStep.TOKEN_TIME_SHIFT;
        long[] old = ConcurrencyStepTest.layout1(BASE, BASE + 60_000, oldToken, oldToken, 2, BASE + 60_000);
        long[] current = Algorithms.step(SPEC, null, BASE + 1, Op.ACQUIRE, 1, 42).state();
        for (long[] merged : new long[][] {StateMerge.merge(old, current), StateMerge.merge(current, old)}) {
            assertEquals(3, held(merged, BASE + 2));
            assertEquals(ConcurrencyStep.LAYOUT_VERSION, Algorithms.layoutOf(merged));
        }
    }

    @Test
    void merge_layout1DominatingAlone_isReturnedAsItIs() {
        long token = BASE << ConcurrencyStep.TOKEN_TIME_SHIFT;
        long[] old = ConcurrencyStepTest.layout1(BASE, BASE + 60_000, token, token, 2, BASE + 60_000);
        long[] copy = old.clone();
        copy[2] = BASE + 30_000;
        assertSame(old, StateMerge.merge(old, copy));
    }

    /** A retry that reaches the healed cluster must still find the lease its first run was granted on one side. */
    @Test
    void merge_keepsEachLeasesNonce_soARetryStillFindsItsLease() {
        Verdict sideA = Algorithms.step(SPEC, null, BASE, Op.ACQUIRE, 2, 0xA11CEL);
        Verdict sideB = Algorithms.step(SPEC, null, BASE, Op.ACQUIRE, 1, 0xB0BL);
        long[] merged = StateMerge.merge(sideA.state(), sideB.state());
        Verdict retryA = Algorithms.step(SPEC, merged, BASE + 5, Op.ACQUIRE, 2, 0xA11CEL);
        Verdict retryB = Algorithms.step(SPEC, merged, BASE + 5, Op.ACQUIRE, 1, 0xB0BL);
        assertTrue(retryA.granted() && retryB.granted());
        assertEquals(sideA.token(), retryA.token());
        assertEquals(sideB.token(), retryB.token());
        assertSame(merged, retryA.state());
        assertEquals(3, held(merged, BASE + 5));
    }
}
