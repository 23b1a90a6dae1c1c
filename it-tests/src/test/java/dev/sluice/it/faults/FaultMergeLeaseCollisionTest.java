package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.StateMerge;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Found by {@link FaultSplitBrainTest} (one run in four on a loaded machine: a key where side A held 2 leases
 * and side B 3 read 4 held after the merge): concurrency leases granted on both sides of a split in the same
 * millisecond get the same token, and the merge, which takes the union of leases by token, keeps only one.
 */
final class FaultMergeLeaseCollisionTest {

    /**
     * Regression: two leases granted while split, one per side in the same millisecond, merged into one.
     *
     * <p>Expected ({@code StateMerge}: "concurrency: the union of the leases"): both leases survive the merge,
     * so 2 of 3 permits are held. Before the fix the token was {@code max(lastToken + 1, now << 20)} on each
     * side, so both leases carried {@code 1_000 << 20}; the merge saw one lease "on both sides", and the
     * healed cluster granted a third lease on top of the two still in use. Now the caller's nonce fills the
     * floor's low bits.
     */
    @Test
    void merge_leasesGrantedOnBothSidesInTheSameMillisecond_keepsBoth() {
        LimitSpec spec = LimitSpec.concurrency(3, Duration.ofMinutes(1));
        // Each side's runtime passes its own random nonce with an acquisition (fixed here for determinism).
        Verdict sideA = Algorithms.step(spec, null, 1_000, Op.ACQUIRE, 1, 0x2F3A1L);
        Verdict sideB = Algorithms.step(spec, null, 1_000, Op.ACQUIRE, 1, 0x51CEL);
        assertTrue(sideA.granted() && sideB.granted());

        long[] merged = StateMerge.merge(sideA.state(), sideB.state());
        Verdict probe = Algorithms.step(spec, merged, 1_001, Op.ACQUIRE, 0, 0);
        assertEquals(1, probe.remaining(), "two leases held after the merge, one permit left (tokens "
                + sideA.token() + " and " + sideB.token() + ")");
    }
}
