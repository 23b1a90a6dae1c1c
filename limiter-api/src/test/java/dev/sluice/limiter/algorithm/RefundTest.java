package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link Op#REFUND}: exact right after the grant, never looser than the algorithm's bound later. */
class RefundTest {

    static Stream<LimitSpec> rateSpecs() {
        return Stream.of(
                new LimitSpec.FixedWindow(7, 1_300),
                new LimitSpec.SlidingWindow(7, 1_200, 6),
                new LimitSpec.SlidingLog(7, 1_100),
                new LimitSpec.SlidingCounter(7, 900),
                new LimitSpec.TokenBucket(7, 2, 170),
                new LimitSpec.Gcra(3, 700, 5),
                LimitSpec.allOf(new LimitSpec.FixedWindow(5, 400), new LimitSpec.SlidingLog(9, 1_500),
                        new LimitSpec.TokenBucket(6, 1, 90)));
    }

    /**
     * From many random histories: a grant refunded at the same instant leaves a state that decides every
     * later request exactly as the state without the grant does.
     */
    @ParameterizedTest
    @MethodSource("rateSpecs")
    void refundAtOnce_decidesLikeTheGrantNeverHappened(LimitSpec spec) {
        Random rnd = new Random(42 + spec.hashCode());
        long horizon = StepHarness.horizon(spec);
        long gap = Math.max(1, horizon / spec.limit());
        int refunded = 0;
        for (int history = 0; history < 300; history++) {
            StepHarness.Store without = new StepHarness.Store(spec);
            long now = BASE + rnd.nextInt(100_000);
            for (int i = rnd.nextInt(12); i > 0; i--) {
                now += rnd.nextLong(2 * gap + 1);
                without.acquire(now, 1 + rnd.nextLong(2));
            }
            now += rnd.nextLong(gap + 1);
            long permits = 1 + rnd.nextLong(Math.min(3, spec.limit()));
            StepHarness.Store with = without.copy();
            Verdict grant = with.acquire(now, permits);
            if (!grant.granted()) {
                continue;
            }
            Verdict refund = with.run(now, Op.REFUND, permits, grant.token());
            assertTrue(refund.granted(), spec + ": a refund at once gives something back");
            refunded++;
            // The same later traffic on both states: every decision alike.
            long t = now;
            for (int i = 0; i < 30; i++) {
                t += rnd.nextLong(2 * gap + 1);
                long p = StepHarness.randomPermits(rnd, spec.limit());
                Verdict expected = without.acquire(t, p);
                Verdict actual = with.acquire(t, p);
                String where = spec + " history " + history + ", request " + i + " (" + p + " at +" + (t - now) + ")";
                assertEquals(expected.granted(), actual.granted(), where);
                assertEquals(expected.remaining(), actual.remaining(), where + ": remaining");
                assertEquals(expected.retryAfterMillis(), actual.retryAfterMillis(), where + ": retryAfter");
            }
        }
        assertTrue(refunded > 100, "too few grants to refund: " + refunded);
    }

    /**
     * Random traffic where some grants are refunded after a random delay (while others keep coming): the
     * grants that stand never exceed the algorithm's own bound over any interval. A refund that gave back
     * what the bucket had already refilled, or the log's latest entries instead of the grant's, fails here.
     */
    @ParameterizedTest
    @MethodSource("rateSpecs")
    void lateRefunds_neverPushPastTheBound(LimitSpec spec) {
        Random rnd = new Random(7 + spec.hashCode());
        long horizon = StepHarness.horizon(spec);
        long gap = Math.max(1, horizon / spec.limit() / 3);
        StepHarness.Store store = new StepHarness.Store(spec);
        record Refund(long at, int grant, long permits, long token) {}
        PriorityQueue<Refund> due = new PriorityQueue<>((a, b) -> Long.compare(a.at, b.at));
        List<long[]> standing = new ArrayList<>(); // {time, permits, refunded 0/1}
        long now = BASE;
        int refunds = 0;
        for (int i = 0; i < 20_000; i++) {
            now += rnd.nextLong(gap + 1);
            while (!due.isEmpty() && due.peek().at <= now) {
                Refund r = due.poll();
                if (store.run(r.at, Op.REFUND, r.permits, r.token).granted()) {
                    refunds++;
                }
                standing.get(r.grant)[2] = 1; // the chain refused: not an admission, whatever the store gave back
            }
            long permits = 1 + (rnd.nextInt(4) == 0 ? rnd.nextLong(Math.min(3, spec.limit())) : 0);
            Verdict v = store.acquire(now, permits);
            if (v.granted()) {
                standing.add(new long[] {now, permits, 0});
                if (rnd.nextInt(3) == 0) {
                    due.add(new Refund(now + rnd.nextLong(2 * horizon + 1), standing.size() - 1, permits, v.token()));
                }
            }
        }
        assertTrue(refunds > 100, spec + ": too few refunds took effect: " + refunds);
        StepHarness.Admissions admitted = new StepHarness.Admissions();
        for (long[] s : standing) {
            if (s[2] == 0) {
                admitted.add(s[0], s[1]);
            }
        }
        assertWithinBound(spec, admitted);
    }

    private static void assertWithinBound(LimitSpec spec, StepHarness.Admissions a) {
        if (spec instanceof LimitSpec.AllOf all) {
            for (LimitSpec c : all.components()) {
                assertWithinBound(c, a);
            }
        } else if (spec instanceof LimitSpec.FixedWindow s) {
            assertTrue(a.maxInAlignedWindow(s.windowMillis()) <= s.permitLimit(), spec + " aligned window");
        } else if (spec instanceof LimitSpec.SlidingCounter s) {
            assertTrue(a.maxInAlignedWindow(s.windowMillis()) <= s.permitLimit(), spec + " aligned window");
        } else if (spec instanceof LimitSpec.SlidingLog s) {
            long max = a.maxInAnyInterval(s.windowMillis());
            assertTrue(max <= s.permitLimit(), spec + ": " + max + " in one window");
        } else if (spec instanceof LimitSpec.SlidingWindow s) {
            long max = a.maxInAnyInterval(s.windowMillis() - s.segmentMillis());
            assertTrue(max <= s.permitLimit(), spec + ": " + max + " in window - segment");
        } else if (spec instanceof LimitSpec.TokenBucket s) {
            for (long length = 1; length <= 20 * s.replenishmentPeriodMillis(); length += 7) {
                long bound = s.tokenLimit() + s.tokensPerPeriod() * (length / s.replenishmentPeriodMillis() + 1);
                long max = a.maxInAnyInterval(length);
                assertTrue(max <= bound, spec + ": " + max + " in " + length + " ms, bound " + bound);
            }
        } else {
            LimitSpec.Gcra s = (LimitSpec.Gcra) spec;
            for (long length = 1; length <= 20 * s.periodMillis(); length += 7) {
                long bound = s.burst() + length * s.permitsPerPeriod() / s.periodMillis() + 1;
                long max = a.maxInAnyInterval(length);
                assertTrue(max <= bound, spec + ": " + max + " in " + length + " ms, bound " + bound);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("rateSpecs")
    void refundOfStaleState_orOfNoGrant_changesNothing(LimitSpec spec) {
        StepHarness.Store store = new StepHarness.Store(spec);
        Verdict grant = store.acquire(BASE, 1);
        long[] written = store.state;
        long later = BASE + 10 * StepHarness.horizon(spec);
        Verdict stale = Algorithms.step(spec, written, later, Op.REFUND, 1, grant.token());
        assertFalse(stale.granted());
        assertSame(written, stale.state(), "a refund on stale state must not write");
        Verdict none = Algorithms.step(spec, null, BASE, Op.REFUND, 1, grant.token());
        assertFalse(none.granted());
        assertNull(none.state());
        Verdict zero = Algorithms.step(spec, written, BASE, Op.REFUND, 0, grant.token());
        assertSame(written, zero.state(), "refunding 0 permits must not write");
    }

    @Test
    void slidingLog_removesTheGrantsOwnEntries_notTheLatest() {
        LimitSpec.SlidingLog spec = new LimitSpec.SlidingLog(3, 1_000);
        StepHarness.Store store = new StepHarness.Store(spec);
        Verdict ours = store.acquire(BASE, 1);
        store.acquire(BASE + 400, 1); // another caller's, later
        store.run(BASE + 500, Op.REFUND, 1, ours.token());
        // Ours (at BASE) is gone, theirs (BASE + 400) counts until BASE + 1400.
        assertEquals(List.of(BASE + 400), Arrays.stream(SlidingLogStep.timestamps(store.state)).skip(3).boxed().toList());
    }

    @Test
    void tokenBucket_refundAfterRefills_givesBackOnlyWhatTheyHaveNotMadeGood() {
        LimitSpec.TokenBucket spec = new LimitSpec.TokenBucket(10, 1, 100);
        StepHarness.Store store = new StepHarness.Store(spec);
        Verdict grant = store.acquire(BASE, 5); // 5 left
        store.acquire(BASE + 250, 1); // two refills since: 6 left
        store.run(BASE + 250, Op.REFUND, 5, grant.token()); // 5 - 2 refills = 3 back: 9
        assertEquals(9, Algorithms.acquire(spec, store.state, BASE + 250, 0).remaining());
    }

    @Test
    void gcra_refundAfterTheArrivalTimeFellBehind_givesBackOnlyTheRest() {
        LimitSpec.Gcra spec = new LimitSpec.Gcra(1, 100, 10); // one per 100 ms, burst 10
        StepHarness.Store store = new StepHarness.Store(spec);
        Verdict grant = store.acquire(BASE, 4); // arrival time BASE + 400
        store.run(BASE + 150, Op.REFUND, 4, grant.token()); // 400 - 150 = 250 ms back: arrival time BASE + 150
        assertEquals(10, Algorithms.acquire(spec, store.state, BASE + 150, 0).remaining());
        assertEquals(9, Algorithms.acquire(spec, store.state, BASE + 150, 1).remaining());
    }

    @Test
    void concurrencyHasNoRefund_itsLeaseIsReleased() {
        LimitSpec.Concurrency spec = new LimitSpec.Concurrency(2, 1_000);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Algorithms.step(spec, null, BASE, Op.REFUND, 1, 5));
        assertTrue(e.getMessage().contains("RELEASE"), e.getMessage());
    }

    @Test
    void composite_refundsEveryComponentByPosition() {
        LimitSpec.AllOf spec = LimitSpec.allOf(new LimitSpec.FixedWindow(2, 1_000), new LimitSpec.SlidingLog(3, 2_000));
        StepHarness.Store store = new StepHarness.Store(spec);
        store.acquire(BASE, 1);
        Verdict second = store.acquire(BASE + 10, 1);
        assertFalse(store.peek(BASE + 20, 1).granted(), "the fixed window is full");
        store.run(BASE + 20, Op.REFUND, 1, second.token());
        Verdict again = store.acquire(BASE + 30, 1);
        assertTrue(again.granted());
        assertEquals(0, again.remaining(), "the log kept one entry and took this one: 3 - 2 = 1, window 2 - 2 = 0");
    }

    @Test
    void replaceForeign_deletesOnlyWhatTheSpecCannotRead() {
        LimitSpec log = new LimitSpec.SlidingLog(5, 1_000);
        long[] bucket = Algorithms.acquire(new LimitSpec.TokenBucket(5, 1, 1_000), null, BASE, 1).state();
        Verdict replaced = Algorithms.step(log, bucket, BASE, Op.REPLACE_FOREIGN, 0, 0);
        assertTrue(replaced.granted());
        assertNull(replaced.state(), "another algorithm's state is deleted");
        long[] own = Algorithms.acquire(log, null, BASE, 1).state();
        assertSame(own, Algorithms.step(log, own, BASE, Op.REPLACE_FOREIGN, 0, 0).state(), "readable state is kept");
        long[] notSluice = {1, 2, 3};
        assertNull(Algorithms.step(log, notSluice, BASE, Op.REPLACE_FOREIGN, 0, 0).state());
        LimitSpec.AllOf two = LimitSpec.allOf(new LimitSpec.FixedWindow(5, 1_000), log);
        LimitSpec.AllOf three = LimitSpec.allOf(new LimitSpec.FixedWindow(5, 1_000), log, new LimitSpec.FixedWindow(9, 99));
        long[] composite = Algorithms.acquire(two, null, BASE, 1).state();
        assertNull(Algorithms.step(three, composite, BASE, Op.REPLACE_FOREIGN, 0, 0).state(), "another shape");
    }
}
