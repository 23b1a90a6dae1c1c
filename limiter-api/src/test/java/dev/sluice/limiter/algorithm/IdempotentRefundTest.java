package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.algorithm.StepRunner.Outcome;
import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A refund carries an id, and the state remembers the ids of the refunds it applied: the same refund run again
 * (Hazelcast re-runs an invocation at least once when its owner crashed after running it) gives nothing back
 * the second time. Regression: it gave back twice, admitting more than the limit.
 */
final class IdempotentRefundTest {

    /** One key's entry as a backend keeps it. */
    private static final class Entry {
        long[] state;

        Verdict run(LimitSpec spec, long now, Op op, long permits, long leaseId) {
            Outcome o = StepRunner.run(spec, op, permits, leaseId, state, now);
            if (o.action() == Outcome.Action.WRITE) {
                assertEquals(Algorithms.expiresAt(o.state()) - now, o.ttlMillis(), "the entry lives as long as its state");
                state = o.state();
            } else if (o.action() == Outcome.Action.REMOVE) {
                state = null;
            }
            return o.verdict();
        }

        long remaining(LimitSpec spec, long now) {
            return run(spec, now, Op.ACQUIRE, 0, 0).remaining();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.sluice.limiter.algorithm.RefundTest#rateSpecs")
    void refundRunTwice_givesBackOnce(LimitSpec spec) {
        Entry entry = new Entry();
        long now = BASE;
        Verdict grant = entry.run(spec, now, Op.ACQUIRE, 2, 0);
        assertTrue(grant.granted());
        entry.run(spec, now, Op.ACQUIRE, 1, 0);
        long before = entry.remaining(spec, now + 1);
        long word = Algorithms.refundPermits(2, Algorithms.newRefundId());
        assertTrue(entry.run(spec, now + 1, Op.REFUND, word, grant.token()).granted());
        long refunded = entry.remaining(spec, now + 1);
        assertTrue(refunded > before, spec + ": the first run gave back");
        long[] afterFirst = entry.state.clone();
        Verdict again = entry.run(spec, now + 2, Op.REFUND, word, grant.token());
        assertTrue(again.granted(), "the re-run answers as the first run did");
        assertArrayEquals(afterFirst, entry.state, spec + ": the re-run changed nothing");
        assertEquals(refunded, entry.remaining(spec, now + 2), spec.toString());
    }

    /**
     * A refund that refills a bucket to full leaves nothing to keep but its id: the entry stays, reading as no
     * bucket, so that a re-run after a new grant does not give back on the new state.
     */
    @Test
    void bucketRefundedToFull_keepsTheIdAcrossANewGrant() {
        LimitSpec spec = LimitSpec.tokenBucket(10, 1, Duration.ofMinutes(1));
        Entry entry = new Entry();
        Verdict grant = entry.run(spec, BASE, Op.ACQUIRE, 5, 0);
        long word = Algorithms.refundPermits(5, Algorithms.newRefundId());
        assertTrue(entry.run(spec, BASE + 1, Op.REFUND, word, grant.token()).granted());
        assertTrue(entry.state != null, "kept for the refund's id");
        assertEquals(10, entry.remaining(spec, BASE + 1), "and reads as a full bucket");
        assertTrue(entry.run(spec, BASE + 2, Op.ACQUIRE, 5, 0).granted());
        entry.run(spec, BASE + 3, Op.REFUND, word, grant.token());
        assertEquals(5, entry.remaining(spec, BASE + 3), "the re-run gave nothing back to the new grant's bucket");
    }

    @Test
    void gcraRefundedToNow_keepsTheIdAcrossANewGrant() {
        LimitSpec spec = LimitSpec.gcra(1, Duration.ofMinutes(1), 5);
        Entry entry = new Entry();
        Verdict grant = entry.run(spec, BASE, Op.ACQUIRE, 3, 0);
        long word = Algorithms.refundPermits(3, Algorithms.newRefundId());
        assertTrue(entry.run(spec, BASE, Op.REFUND, word, grant.token()).granted());
        assertTrue(entry.run(spec, BASE + 1, Op.ACQUIRE, 3, 0).granted());
        long left = entry.remaining(spec, BASE + 2);
        entry.run(spec, BASE + 2, Op.REFUND, word, grant.token());
        assertEquals(left, entry.remaining(spec, BASE + 2));
    }

    /** Two refunds are two ids; an id is forgotten once its time has passed, and the state then costs nothing more. */
    @Test
    void memory_growsTwoWordsPerRefund_boundedAndForgottenAfterItsTime() {
        LimitSpec spec = LimitSpec.fixedWindow(1_000, Duration.ofDays(1));
        Entry entry = new Entry();
        long now = BASE;
        entry.run(spec, now, Op.ACQUIRE, 1, 0);
        int plain = entry.state.length;
        for (int i = 1; i <= RefundMemory.MAX_IDS + 5; i++) {
            Verdict grant = entry.run(spec, now, Op.ACQUIRE, 1, 0);
            entry.run(spec, now, Op.REFUND, Algorithms.refundPermits(1, Algorithms.newRefundId()), grant.token());
            assertEquals(plain + 2 * Math.min(i, RefundMemory.MAX_IDS), entry.state.length, "after " + i + " refunds");
        }
        assertEquals(999, entry.remaining(spec, now), "every refund gave back, none twice");
        long[] remembered = entry.state;
        Verdict refusal = entry.run(spec, now + 1, Op.ACQUIRE, 1_000, 0);
        assertFalse(refusal.granted());
        assertSame(remembered, entry.state, "a refusal writes nothing, memory or not");
        long later = now + RefundMemory.KEPT_MILLIS;
        Verdict grant = entry.run(spec, later, Op.ACQUIRE, 1, 0);
        assertTrue(grant.granted());
        assertEquals(plain, entry.state.length, "the next write after the ids' time drops them");
    }

    @Test
    void refundPermits_idOutOfRange_throws() {
        assertThrows(IllegalArgumentException.class, () -> Algorithms.refundPermits(1, 0));
        assertThrows(IllegalArgumentException.class, () -> Algorithms.refundPermits(1, 1L << 33));
        for (int i = 0; i < 1_000; i++) {
            assertTrue(Algorithms.refundPermits(LimitSpec.MAX_LIMIT, Algorithms.newRefundId()) > 0);
        }
    }

    /** Two sides of a split cluster each remember their refunds; the merged state remembers both. */
    @Test
    void merge_keepsBothSidesRefundIds() {
        LimitSpec spec = LimitSpec.slidingLog(10, Duration.ofMinutes(1));
        Entry a = new Entry();
        Verdict grantA = a.run(spec, BASE, Op.ACQUIRE, 2, 0);
        Entry b = new Entry();
        b.state = a.state.clone();
        long wordA = Algorithms.refundPermits(2, Algorithms.newRefundId());
        a.run(spec, BASE + 1, Op.REFUND, wordA, grantA.token());
        Verdict grantB = b.run(spec, BASE + 2, Op.ACQUIRE, 3, 0);
        long wordB = Algorithms.refundPermits(3, Algorithms.newRefundId());
        b.run(spec, BASE + 3, Op.REFUND, wordB, grantB.token());
        Entry merged = new Entry();
        merged.state = StateMerge.merge(a.state, b.state);
        long remaining = merged.remaining(spec, BASE + 4);
        merged.run(spec, BASE + 4, Op.REFUND, wordA, grantA.token());
        merged.run(spec, BASE + 4, Op.REFUND, wordB, grantB.token());
        assertEquals(remaining, merged.remaining(spec, BASE + 4), "neither side's refund applied again");
    }
}
