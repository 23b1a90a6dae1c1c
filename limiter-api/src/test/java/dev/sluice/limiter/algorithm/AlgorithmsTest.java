package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static dev.sluice.limiter.algorithm.StepHarness.assertSameOutcome;
import static dev.sluice.limiter.algorithm.StepHarness.oneOfEach;
import static dev.sluice.limiter.algorithm.StepHarness.randomStep;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.StepHarness.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Rules every algorithm follows: permits, headers, purity, monotonic time, stale state. */
final class AlgorithmsTest {

    static Stream<LimitSpec> specs() {
        return Stream.of(oneOfEach());
    }

    /** Specs with several limits, so that "exactly N" is not a coincidence of one N. */
    static Stream<LimitSpec> specsWithLimits() {
        return Stream.of(1L, 3L, 7L, 50L).flatMap(n -> Stream.of(
                new LimitSpec.FixedWindow(n, 1_000),
                new LimitSpec.SlidingWindow(n, 1_000, 4),
                new LimitSpec.SlidingLog(n, 1_000),
                new LimitSpec.SlidingCounter(n, 1_000),
                new LimitSpec.TokenBucket(n, 1, 100),
                new LimitSpec.Gcra(1, 100, n),
                new LimitSpec.Concurrency(n, 1_000)));
    }

    @ParameterizedTest
    @MethodSource("specsWithLimits")
    void tryAcquire_sameInstantDemandThreeTimesLimit_admitsExactlyLimit(LimitSpec spec) {
        Store store = new Store(spec);
        long granted = 0;
        for (int i = 0; i < 3 * spec.limit(); i++) {
            if (store.acquire(BASE, 1).granted()) {
                granted++;
            }
        }
        assertEquals(spec.limit(), granted, spec.toString());
    }

    @ParameterizedTest
    @MethodSource("specsWithLimits")
    void tryAcquire_demandInBatches_admitsExactlyLimit(LimitSpec spec) {
        Store store = new Store(spec);
        long batch = Math.max(1, spec.limit() / 3);
        long granted = 0;
        for (int i = 0; i < 10; i++) {
            if (store.acquire(BASE, batch).granted()) {
                granted += batch;
            }
        }
        assertEquals(spec.limit() / batch * batch, granted, spec.toString());
    }

    @ParameterizedTest
    @MethodSource("specs")
    void probe_zeroPermits_consumesNothingAndGrantsIffOnePermitAvailable(LimitSpec spec) {
        Random rnd = new Random(42);
        Store store = new Store(spec);
        List<Long> leases = new ArrayList<>();
        long now = BASE;
        int grantedProbes = 0;
        int refusedProbes = 0;
        for (int i = 0; i < 3_000; i++) {
            now = randomStep(store, rnd, now, leases);
            long[] before = store.state;
            Verdict probe = store.peek(now, 0);
            assertSame(before, probe.state(), "a probe must not write");
            Verdict one = store.peek(now, 1);
            assertEquals(one.granted(), probe.granted(), () -> spec + " probe vs 1 permit at state " + store.state);
            if (probe.granted()) {
                grantedProbes++;
            } else {
                refusedProbes++;
            }
        }
        assertTrue(grantedProbes > 100 && refusedProbes > 100, grantedProbes + " granted, " + refusedProbes + " refused");
    }

    @ParameterizedTest
    @MethodSource("specs")
    void tryAcquire_negativePermits_throwsNamingValueAndBound(LimitSpec spec) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Algorithms.acquire(spec, null, BASE, -3));
        assertTrue(e.getMessage().contains("-3") && e.getMessage().contains(" " + spec.limit()), e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("specs")
    void tryAcquire_permitsAboveLimit_throwsNamingValueAndBound(LimitSpec spec) {
        long tooMany = spec.limit() + 1;
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Algorithms.acquire(spec, null, BASE, tooMany));
        assertTrue(e.getMessage().contains("was " + tooMany) && e.getMessage().contains(" " + spec.limit() + " "),
                e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("specs")
    void tryAcquire_permitsEqualToLimit_isAccepted(LimitSpec spec) {
        assertTrue(Algorithms.acquire(spec, null, BASE, spec.limit()).granted());
    }

    @Test
    void step_otherAlgorithmsState_throwsNamingBothAlgorithms() {
        for (LimitSpec writer : oneOfEach()) {
            long[] state = Algorithms.acquire(writer, null, BASE, 1).state();
            for (LimitSpec reader : oneOfEach()) {
                if (reader.algorithm().equals(writer.algorithm())) {
                    continue;
                }
                long[] copy = state.clone();
                IllegalStateException e = assertThrows(IllegalStateException.class,
                        () -> Algorithms.acquire(reader, copy, BASE, 1));
                assertTrue(e.getMessage().contains(writer.algorithm()) && e.getMessage().contains(reader.algorithm()),
                        e.getMessage());
                assertArrayEquals(state, copy);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("specs")
    void step_nonSluiceWords_throws(LimitSpec spec) {
        long[][] foreign = {{}, {1}, {1, 2, 3}, {0, 0, 0, 0, 0}, {-1, BASE, Long.MAX_VALUE, 4, 5},
            {0x51CFL << 48, BASE, Long.MAX_VALUE, 4, 5}};
        for (long[] words : foreign) {
            long[] copy = words.clone();
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> Algorithms.acquire(spec, copy, BASE, 1));
            assertTrue(e.getMessage().contains("not Sluice") && e.getMessage().contains(spec.algorithm()),
                    e.getMessage());
            assertArrayEquals(words, copy);
        }
    }

    /** A state with a valid header but the wrong number of words used to fail with an index exception. */
    @ParameterizedTest
    @MethodSource("specs")
    void step_sluiceHeaderWithWrongLength_throwsIllegalState(LimitSpec spec) {
        long[] valid = Algorithms.acquire(spec, null, BASE, 1).state();
        for (int length = Algorithms.HEADER_WORDS; length < valid.length + 3; length++) {
            if (length == valid.length || spec instanceof LimitSpec.SlidingLog) {
                continue; // a valid length for this layout
            }
            long[] words = java.util.Arrays.copyOf(valid, length);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> Algorithms.acquire(spec, words, BASE + 1, 1), spec + " with " + length + " words");
            assertTrue(e.getMessage().contains(spec.algorithm()), e.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("specs")
    void step_opOtherThanAcquireOnNonConcurrency_throws(LimitSpec spec) {
        if (spec instanceof LimitSpec.Concurrency) {
            return;
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Algorithms.step(spec, null, BASE, Op.RENEW, 0, 1));
        assertTrue(e.getMessage().contains("RENEW") && e.getMessage().contains(spec.algorithm()), e.getMessage());
    }

    @Test
    void step_nullSpecOrOp_throwsNullPointer() {
        assertThrows(NullPointerException.class, () -> Algorithms.step(null, null, BASE, Op.ACQUIRE, 1, 0));
        assertThrows(NullPointerException.class,
                () -> Algorithms.step(new LimitSpec.FixedWindow(1, 1), null, BASE, null, 1, 0));
    }

    @ParameterizedTest
    @MethodSource("specs")
    void step_anyHistory_neverMutatesItsInput(LimitSpec spec) {
        // Store.peek compares a copy of the input before and after every step.
        Random rnd = new Random(7);
        Store store = new Store(spec);
        List<Long> leases = new ArrayList<>();
        long now = BASE;
        int writes = 0;
        for (int i = 0; i < 5_000; i++) {
            long[] before = store.state;
            now = randomStep(store, rnd, now, leases);
            if (store.state != before) {
                writes++;
            }
        }
        assertTrue(writes > 500, "only " + writes + " writes");
    }

    @ParameterizedTest
    @MethodSource("specs")
    void step_nowBeforeLastNow_behavesAsAtLastNow(LimitSpec spec) {
        Random rnd = new Random(11);
        Store store = new Store(spec);
        List<Long> leases = new ArrayList<>();
        long now = BASE;
        int compared = 0;
        for (int i = 0; i < 3_000; i++) {
            now = randomStep(store, rnd, now, leases);
            if (store.state == null) {
                continue;
            }
            long last = store.lastNow();
            long earlier = last - 1 - rnd.nextInt(5 * (int) StepHarness.horizon(spec));
            long permits = StepHarness.randomPermits(rnd, spec.limit());
            Verdict atLast = store.peek(last, permits);
            Verdict before = store.peek(earlier, permits);
            assertSameOutcome(atLast, store.state, before, store.state, spec + " at " + earlier + " < " + last);
            compared++;
        }
        assertTrue(compared > 1_000);
    }

    @ParameterizedTest
    @MethodSource("specs")
    void step_staleState_readsAsAbsent(LimitSpec spec) {
        Random rnd = new Random(13);
        Store store = new Store(spec);
        List<Long> leases = new ArrayList<>();
        long now = BASE;
        int compared = 0;
        for (int i = 0; i < 3_000; i++) {
            now = randomStep(store, rnd, now, leases);
            if (store.state == null) {
                continue;
            }
            long expiresAt = Algorithms.expiresAt(store.state);
            assertTrue(expiresAt > store.lastNow(), "a stored state must not be born stale");
            long at = expiresAt + (rnd.nextBoolean() ? 0 : rnd.nextInt(3 * (int) StepHarness.horizon(spec)));
            long permits = StepHarness.randomPermits(rnd, spec.limit());
            Verdict fresh = Algorithms.acquire(spec, null, at, permits);
            Verdict stale = store.peek(at, permits);
            assertSameOutcome(fresh, null, stale, store.state, spec + " stale at " + at);
            compared++;
        }
        assertTrue(compared > 1_000);
    }

    /**
     * Every op on an expired state, and on an expired state of another algorithm (which a live one refuses), decides
     * as on no state: a store that keeps expired entries until a sweep must decide as one whose entries vanish.
     */
    @ParameterizedTest
    @MethodSource("specs")
    void step_expiredState_everyOpAndAnotherAlgorithmsState_decideAsAbsent(LimitSpec spec) {
        LimitSpec other = spec instanceof LimitSpec.FixedWindow ? new LimitSpec.Gcra(2, 1_000, 5)
                : new LimitSpec.FixedWindow(5, 1_000);
        for (long[] state : new long[][] {Algorithms.acquire(spec, null, BASE, 2).state(),
                Algorithms.acquire(other, null, BASE, 2).state()}) {
            long at = Algorithms.expiresAt(state);
            assertTrue(Algorithms.isExpired(state, at) && !Algorithms.isExpired(state, at - 1));
            for (Op op : Op.values()) {
                long permits = op == Op.RESET ? spec.limit() - 1 : op == Op.ACQUIRE ? 1 : 0;
                Verdict absent;
                try {
                    absent = Algorithms.step(spec, null, at, op, permits, 0);
                } catch (IllegalArgumentException notForThisAlgorithm) {
                    continue;
                }
                Verdict expired = Algorithms.step(spec, state, at, op, permits, 0);
                assertSameOutcome(absent, null, expired, state, spec + " " + op + " on " + Algorithms.name(
                        Algorithms.algorithmIdOf(state)) + " state expired at " + at);
            }
        }
        assertFalse(Algorithms.isExpired(new long[] {1, 2, 3}, Long.MAX_VALUE), "not Sluice state: never expired");
        assertFalse(Algorithms.isExpired(null, BASE));
    }

    @Test
    void step_staleConcurrencyState_renewAndReleaseReadAsAbsent() {
        LimitSpec spec = new LimitSpec.Concurrency(3, 100);
        Verdict acquired = Algorithms.acquire(spec, null, BASE, 1);
        long[] state = acquired.state();
        for (Op op : new Op[] {Op.RENEW, Op.RELEASE}) {
            Verdict v = Algorithms.step(spec, state, BASE + 100, op, 0, acquired.token());
            assertFalse(v.granted(), op.toString());
            assertSame(state, v.state(), op + " must not write");
        }
    }

    static Stream<Arguments> limitLowered() {
        return Stream.of(
                Arguments.of(new LimitSpec.FixedWindow(10, 1_000), new LimitSpec.FixedWindow(3, 1_000)),
                Arguments.of(new LimitSpec.SlidingWindow(10, 1_000, 4), new LimitSpec.SlidingWindow(3, 1_000, 4)),
                Arguments.of(new LimitSpec.SlidingWindow(10, 1_000, 4), new LimitSpec.SlidingWindow(3, 1_000, 5)),
                Arguments.of(new LimitSpec.SlidingLog(10, 1_000), new LimitSpec.SlidingLog(3, 1_000)),
                Arguments.of(new LimitSpec.SlidingCounter(10, 1_000), new LimitSpec.SlidingCounter(3, 1_000)),
                Arguments.of(new LimitSpec.TokenBucket(10, 1, 1_000), new LimitSpec.TokenBucket(3, 1, 1_000)),
                Arguments.of(new LimitSpec.Gcra(1, 1_000, 10), new LimitSpec.Gcra(1, 1_000, 3)),
                Arguments.of(new LimitSpec.Concurrency(10, 1_000), new LimitSpec.Concurrency(3, 1_000)));
    }

    /** A fixed or sliding window whose limit was lowered used to report a negative number of remaining permits. */
    @ParameterizedTest
    @MethodSource("limitLowered")
    void tryAcquire_stateWrittenUnderHigherLimit_refusesWithZeroRemaining(LimitSpec before, LimitSpec after) {
        long[] state = Algorithms.acquire(before, null, BASE, 10).state();
        for (long permits = 0; permits <= after.limit(); permits++) {
            Verdict v = Algorithms.acquire(after, state, BASE + 1, permits);
            assertFalse(v.granted(), after + " with " + permits + " permits");
            assertEquals(0, v.remaining(), after + " with " + permits + " permits");
        }
    }

    @ParameterizedTest
    @MethodSource("specs")
    void step_stateAtItsExpiry_readsAsAbsentWhateverItsWordsSay(LimitSpec spec) {
        long[] state = Algorithms.acquire(spec, null, BASE, spec.limit()).state();
        assertFalse(Algorithms.acquire(spec, state, BASE + 1, 1).granted());
        long[] expiring = state.clone();
        expiring[Algorithms.EXPIRES_AT] = BASE + 1;
        Verdict v = Algorithms.acquire(spec, expiring, BASE + 1, spec.limit());
        assertTrue(v.granted(), spec.toString());
        assertArrayEquals(Algorithms.acquire(spec, null, BASE + 1, spec.limit()).state(), v.state());
    }
}
