package dev.sluice.limiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The local share of each algorithm family: permits parameters divided and rounded down, nothing else. */
final class LocalShareTest {
    private static final Duration SECOND = Duration.ofMillis(1_500);

    @Test
    void windows_limitDividedRoundedDown_windowAndSegmentsKept() {
        assertEquals(LimitSpec.fixedWindow(3, SECOND), LocalShare.of(LimitSpec.fixedWindow(10, SECOND), 3));
        assertEquals(LimitSpec.slidingLog(3, SECOND), LocalShare.of(LimitSpec.slidingLog(10, SECOND), 3));
        assertEquals(LimitSpec.slidingCounter(33, SECOND), LocalShare.of(LimitSpec.slidingCounter(100, SECOND), 3));
        assertEquals(LimitSpec.slidingWindow(33, SECOND, 10),
                LocalShare.of(LimitSpec.slidingWindow(100, SECOND, 10), 3), "segments are no permits");
    }

    @Test
    void tokenBucket_sizeAndRefillDivided_periodKept() {
        assertEquals(LimitSpec.tokenBucket(3, 1, SECOND), LocalShare.of(LimitSpec.tokenBucket(10, 4, SECOND), 3));
    }

    @Test
    void gcra_rateAndBurstDivided_periodKept() {
        assertEquals(LimitSpec.gcra(3, SECOND, 2), LocalShare.of(LimitSpec.gcra(9, SECOND, 7), 3));
    }

    @Test
    void concurrency_limitDivided_leaseDurationKept() {
        assertEquals(LimitSpec.concurrency(3, Duration.ofSeconds(30)),
                LocalShare.of(LimitSpec.concurrency(7, Duration.ofSeconds(30)), 2));
    }

    @Test
    void composite_eachComponentDivided() {
        LimitSpec spec = LimitSpec.allOf(LimitSpec.fixedWindow(10, SECOND), LimitSpec.tokenBucket(100, 10, SECOND));
        assertEquals(LimitSpec.allOf(LimitSpec.fixedWindow(5, SECOND), LimitSpec.tokenBucket(50, 5, SECOND)),
                LocalShare.of(spec, 2));
    }

    @Test
    void shareOfZero_isNone() {
        assertNull(LocalShare.of(LimitSpec.fixedWindow(2, SECOND), 3), "a limit of 2 over 3 replicas");
        assertNull(LocalShare.of(LimitSpec.tokenBucket(30, 2, SECOND), 3), "a refill of 2 over 3 replicas");
        assertNull(LocalShare.of(LimitSpec.allOf(LimitSpec.fixedWindow(30, SECOND), LimitSpec.slidingLog(2, SECOND)),
                3), "one component's share of 0 refuses the composite");
    }

    @Test
    void oneReplica_isTheSpecItself() {
        LimitSpec spec = LimitSpec.gcra(9, SECOND, 7);
        assertSame(spec, LocalShare.of(spec, 1));
    }

    @Test
    void replicasBelowOne_throws() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LocalShare.of(LimitSpec.fixedWindow(10, SECOND), 0));
        assertTrue(e.getMessage().contains("replicas must be at least 1, was 0"), e.getMessage());
    }

    /** Every algorithm there is, read from its description: the sum of the shares never exceeds a permits value. */
    @Test
    void everyAlgorithm_sharesAddUpToAtMostEachPermitsParameter() {
        for (AlgorithmDescription d : AlgorithmDescription.all()) {
            if (d.kind() == AlgorithmDescription.Kind.COMPOSITE) {
                continue;
            }
            long[] values = new long[d.parameters().size()];
            for (int i = 0; i < values.length; i++) {
                AlgorithmDescription.Parameter p = d.parameters().get(i);
                values[i] = p.unit() == AlgorithmDescription.Unit.PERMITS ? Math.min(p.max(), 1_000)
                        : p.defaultValue().orElse(Math.max(p.min(), p.isDuration() ? 60_000 : 1));
            }
            LimitSpec spec = d.spec(values);
            for (int replicas : new int[] {2, 3, 7, 999, 1_001}) {
                LimitSpec share = LocalShare.of(spec, replicas);
                assertEquals(replicas > 1_000, share == null, d.name() + " over " + replicas);
                if (share == null) {
                    continue;
                }
                long[] shared = d.values(share);
                for (int i = 0; i < values.length; i++) {
                    if (d.parameters().get(i).unit() == AlgorithmDescription.Unit.PERMITS) {
                        assertEquals(values[i] / replicas, shared[i], d.name() + " " + d.parameters().get(i).name());
                        assertTrue(shared[i] * replicas <= values[i], d.name());
                    } else {
                        assertEquals(values[i], shared[i], d.name() + " " + d.parameters().get(i).name());
                    }
                }
            }
        }
    }
}
