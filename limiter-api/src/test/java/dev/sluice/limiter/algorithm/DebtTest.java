package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.StepRunner.Outcome;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link Op#CHARGE} and the debt the dispatch keeps for every rate algorithm ({@link Debt}). */
final class DebtTest {

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

        Verdict read(LimitSpec spec, long now) {
            return run(spec, now, Op.INSPECT, 0, 0);
        }

        /** Takes the whole budget and charges {@code extra} beyond it; the verdict's token is the debt. */
        Verdict spendAndOwe(LimitSpec spec, long now, long extra, long chargeId) {
            assertTrue(run(spec, now, Op.ACQUIRE, spec.limit(), 0).granted(), spec.toString());
            return run(spec, now, Op.CHARGE, Algorithms.refundPermits(extra, chargeId), 0);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.sluice.limiter.algorithm.RefundTest#rateSpecs")
    void chargeRunTwice_chargesOnce(LimitSpec spec) {
        Entry entry = new Entry();
        long id = Algorithms.newRefundId();
        Verdict charged = entry.spendAndOwe(spec, BASE, 2, id);
        assertFalse(charged.granted(), "nothing left to pay with");
        assertEquals(2, charged.token(), "owed");
        long[] afterFirst = entry.state.clone();
        Verdict again = entry.run(spec, BASE + 1, Op.CHARGE, Algorithms.refundPermits(2, id), 0);
        assertEquals(2, again.token(), "the re-run answers what the key owes");
        assertArrayEquals(afterFirst, entry.state, spec + ": the re-run changed nothing");
        assertEquals(-2, entry.read(spec, BASE + 1).remaining(), "a read shows the debt as a remaining below 0");
    }

    @ParameterizedTest
    @MethodSource("dev.sluice.limiter.algorithm.RefundTest#rateSpecs")
    void charge_withinTheBudget_takesFromIt(LimitSpec spec) {
        Entry entry = new Entry();
        assertTrue(entry.run(spec, BASE, Op.ACQUIRE, 1, 0).granted());
        Verdict charged = entry.run(spec, BASE, Op.CHARGE, 2, 0);
        assertTrue(charged.granted(), spec.toString());
        assertEquals(0, charged.token());
        assertEquals(spec.limit() - 3, entry.read(spec, BASE).remaining(), spec.toString());
        assertFalse(Debt.has(RefundMemory.core(entry.state, RefundMemory.count(entry.state))), "no debt trailer");
    }

    /**
     * The state that owes is kept until the budget it owes would have been produced, and no longer: from then on it
     * reads as a fresh key's, exactly what a key whose debt was paid by that budget holds.
     */
    @ParameterizedTest
    @MethodSource("dev.sluice.limiter.algorithm.RefundTest#rateSpecs")
    void debt_isKeptUntilTheBudgetItOwesIsProduced(LimitSpec spec) {
        Entry entry = new Entry();
        long owed = 2 * spec.limit() + 1;
        for (int i = 0; i < 3; i++) {
            entry.run(spec, BASE, Op.CHARGE, Math.min(spec.limit(), owed - i * spec.limit()), 0);
        }
        long[] core = RefundMemory.core(entry.state, RefundMemory.count(entry.state));
        long refill = Debt.refillMillis(spec);
        long fullAt = core[Algorithms.EXPIRES_AT]; // the budget is full again then
        assertTrue(Debt.owed(core) > 0, spec.toString());
        long keptUntil = Algorithms.expiresAt(entry.state);
        assertTrue(keptUntil >= fullAt + Algorithms.ceilDiv(Debt.owed(core), spec.limit()) * refill,
                spec + ": kept until every owed permit is produced");
        assertTrue(entry.read(spec, keptUntil - 1).remaining() < spec.limit(), spec + ": still owing just before");
        Verdict after = entry.read(spec, keptUntil);
        assertEquals(spec.limit(), after.remaining(), spec + ": a full budget once it was produced");
    }

    @ParameterizedTest
    @MethodSource("dev.sluice.limiter.algorithm.RefundTest#rateSpecs")
    void merge_keepsTheLargerDebt(LimitSpec spec) {
        Entry small = new Entry();
        small.spendAndOwe(spec, BASE, 1, Algorithms.newRefundId());
        Entry large = new Entry();
        large.spendAndOwe(spec, BASE, 3, Algorithms.newRefundId());
        for (long[][] pair : new long[][][] {{small.state, large.state}, {large.state, small.state}}) {
            long[] merged = StateMerge.merge(pair[0], pair[1]);
            Entry healed = new Entry();
            healed.state = merged;
            assertEquals(-3, healed.read(spec, BASE + 1).remaining(), spec.toString());
        }
        assertEquals(-1, small.read(spec, BASE + 1).remaining(), "merging changed neither side");
    }

    @Test
    void charge_ofAConcurrencyLimiter_isRefused() {
        LimitSpec spec = LimitSpec.concurrency(3, Duration.ofMinutes(1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Algorithms.step(spec, null, BASE, Op.CHARGE, 1, 0));
        assertTrue(e.getMessage().contains("rate limiters only"), e.getMessage());
    }

    /** A cost may exceed the limit: the budget pays what it holds, the rest is owed; beyond any limit it is refused. */
    @Test
    void charge_aboveTheLimit_paysTheBudgetAndOwesTheRest() {
        LimitSpec spec = LimitSpec.fixedWindow(5, Duration.ofMinutes(1));
        Verdict v = Algorithms.step(spec, null, BASE, Op.CHARGE, 12, 0);
        assertEquals(7, v.token(), "12 charged, 5 paid, 7 owed");
        assertThrows(IllegalArgumentException.class,
                () -> Algorithms.step(spec, null, BASE, Op.CHARGE, LimitSpec.MAX_LIMIT + 1, 0));
    }

    /** A refund of a key that owes gives back to its budget and keeps the debt, which the next grant pays first. */
    @Test
    void refund_ofAKeyThatOwes_keepsTheDebt() {
        LimitSpec spec = LimitSpec.fixedWindow(5, Duration.ofMinutes(1));
        Entry entry = new Entry();
        long now = BASE - Math.floorMod(BASE, 60_000);
        Verdict grant = entry.run(spec, now, Op.ACQUIRE, 2, 0);
        entry.run(spec, now, Op.ACQUIRE, 3, 0);
        entry.run(spec, now, Op.CHARGE, 4, 0);
        assertTrue(entry.run(spec, now + 1, Op.REFUND, 2, grant.token()).granted());
        assertEquals(-2, entry.read(spec, now + 1).remaining(), "2 back, 4 owed");
        assertFalse(entry.run(spec, now + 1, Op.ACQUIRE, 1, 0).granted());
        assertEquals(-2, entry.read(spec, now + 1).remaining(), "the refusal paid 2 of 4");
    }
}
