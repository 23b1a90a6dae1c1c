package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The run-length sliding log against a straightforward reference: one time word per permit, decided as the log
 * was decided before it kept runs. Same verdicts, same times, on random histories of grants, probes, refusals,
 * refunds and changes of the window.
 */
final class CompactSlidingLogTest {
    private static final long LEGACY_HEADER = Algorithms.MAGIC << 48 | (long) SlidingLogStep.ID << 40
            | (long) SlidingLogStep.LEGACY_LAYOUT << 32;

    /** The log as it was: a sorted array of times after the three header words. */
    static final class Reference {
        long[] state;

        Verdict acquire(LimitSpec.SlidingLog spec, long at, long permits) {
            long[] current = state;
            long now = at;
            if (current != null) {
                if (now >= current[2]) {
                    current = null;
                } else {
                    now = Math.max(now, current[1]);
                }
            }
            Verdict v = step(spec, current, now, permits);
            state = v.state() == current ? state : v.state();
            return v;
        }

        boolean refund(LimitSpec.SlidingLog spec, long at, long permits, long grantedAt) {
            if (state == null || at >= state[2]) {
                return false;
            }
            long now = Math.max(at, state[1]);
            long[] s = state;
            int last = s.length - 1;
            while (last >= 3 && s[last] > grantedAt) {
                last--;
            }
            int first = last;
            while (first >= 3 && s[first] == grantedAt && last - first < permits) {
                first--;
            }
            int removed = last - first;
            if (removed == 0) {
                return false;
            }
            long[] updated = new long[s.length - removed];
            System.arraycopy(s, 0, updated, 0, first + 1);
            System.arraycopy(s, last + 1, updated, first + 1, s.length - last - 1);
            updated[2] = updated.length > 3 ? updated[updated.length - 1] + spec.windowMillis() : updated[1];
            state = updated[2] - now > 0 ? updated : null;
            return true;
        }

        private static Verdict step(LimitSpec.SlidingLog spec, long[] state, long now, long permits) {
            long window = spec.windowMillis();
            long limit = spec.permitLimit();
            int first = 3;
            int end = state == null ? 3 : state.length;
            while (first < end && state[first] + window <= now) {
                first++;
            }
            int live = end - first;
            long resetAfter = live > 0 ? state[end - 1] + window - now : 0;
            long[] kept = state;
            if (live > 0 && state[2] != state[end - 1] + window) {
                kept = state.clone();
                kept[1] = now;
                kept[2] = state[end - 1] + window;
            }
            if (permits == 0 ? live < limit : live + permits <= limit) {
                if (permits == 0) {
                    return Verdict.granted(limit - live, limit, resetAfter, 0, resetAfter, kept);
                }
                long[] updated = new long[3 + live + (int) permits];
                updated[0] = LEGACY_HEADER;
                updated[1] = now;
                updated[2] = now + window;
                if (live > 0) {
                    System.arraycopy(state, first, updated, 3, live);
                }
                Arrays.fill(updated, 3 + live, updated.length, now);
                return Verdict.granted(limit - live - permits, limit, window, now, window, updated);
            }
            long needed = live + Math.max(permits, 1) - limit;
            long retryAt = state[first + (int) needed - 1] + window;
            return Verdict.refused(Math.max(0, limit - live), limit, retryAt - now, resetAfter, resetAfter, kept);
        }
    }

    @Test
    void randomHistories_decideExactlyAsTheOneWordPerPermitLog() {
        for (long seed = 1; seed <= 60; seed++) {
            Random rnd = new Random(seed);
            long limit = 1 + rnd.nextInt(seed % 3 == 0 ? 2_000 : 40);
            long window = 1 + rnd.nextInt(seed % 2 == 0 ? 100 : 20_000);
            boolean bursts = seed % 4 == 1;
            LimitSpec.SlidingLog spec = new LimitSpec.SlidingLog(limit, window);
            Reference reference = new Reference();
            long[] state = null;
            long now = BASE;
            List<long[]> grants = new ArrayList<>();
            for (int i = 0; i < 3_000; i++) {
                String what = "seed " + seed + " step " + i;
                if (rnd.nextInt(200) == 0) { // a live change of the window, longer or shorter
                    window = 1 + rnd.nextInt(seed % 2 == 0 ? 100 : 20_000);
                    spec = new LimitSpec.SlidingLog(limit, window);
                }
                now += bursts ? (rnd.nextInt(8) == 0 ? rnd.nextLong(3 * window / limit + 2) : 0)
                        : rnd.nextLong(2 * window / limit + 2);
                long at = rnd.nextInt(50) == 0 ? now - rnd.nextInt(5) : now; // a clock that steps back a little
                if (rnd.nextInt(10) == 0 && !grants.isEmpty()) {
                    long[] grant = grants.remove(rnd.nextInt(grants.size()));
                    long permits = 1 + rnd.nextInt((int) grant[1]);
                    boolean expected = reference.refund(spec, at, permits, grant[0]);
                    Verdict v = Algorithms.step(spec, state, at, Op.REFUND, permits, grant[0]);
                    assertEquals(expected, v.granted(), what + ": refund");
                    state = v.granted() ? v.state() : state;
                } else {
                    long permits = rnd.nextInt(6) == 0 ? 0 : 1 + rnd.nextLong(Math.min(limit, bursts ? 40 : 3));
                    Verdict expected = reference.acquire(spec, at, permits);
                    Verdict v = Algorithms.step(spec, state, at, Op.ACQUIRE, permits, 0);
                    assertSameDecision(expected, v, what);
                    state = v.state();
                    if (v.granted() && permits > 0) {
                        grants.add(new long[] {v.token(), permits});
                    }
                }
                assertSameTimes(reference.state, state, what);
            }
        }
    }

    @Test
    void encoding_roundTrips_evenlySpreadBurstsAndLongGaps() {
        Random rnd = new Random(7);
        for (int n : new int[] {0, 1, 2, 7, 8, 9, 100, 5_000}) {
            for (int shape = 0; shape < 3; shape++) {
                long[] times = new long[3 + n];
                times[0] = LEGACY_HEADER;
                long t = BASE;
                for (int i = 0; i < n; i++) {
                    t += shape == 0 ? 40 : shape == 1 ? (rnd.nextInt(5) == 0 ? 1 : 0) : rnd.nextLong(1L << 40);
                    times[3 + i] = t;
                }
                times[1] = t;
                times[2] = t + 60_000;
                long[] encoded = SlidingLogStep.encode(times);
                assertEquals(SlidingLogStep.LAYOUT_VERSION, Algorithms.layoutOf(encoded));
                assertTrue(SlidingLogStep.isWellFormedLog(encoded));
                assertArrayEquals(times, SlidingLogStep.timestamps(encoded), n + " times of shape " + shape);
            }
        }
    }

    /**
     * Grants spread evenly over the window take one byte each up to 63 ms apart, two up to 8 s apart; each further
     * grant of one millisecond one byte; a grant of many permits a few bytes in all.
     */
    @Test
    void aLog_takesABytePerGrantOrTwo_notAWordPerPermit() {
        LimitSpec.SlidingLog spec = new LimitSpec.SlidingLog(10_000, 3_600_000);
        long[] dense = null;
        long[] sparse = null;
        long[] burst = null;
        for (int i = 0; i < 9_000; i++) {
            dense = Algorithms.acquire(spec, dense, BASE + i * 36L, 1).state();
            sparse = Algorithms.acquire(spec, sparse, BASE + i * 360L, 1).state();
            burst = Algorithms.acquire(spec, burst, BASE + i / 100, 1).state();
        }
        assertEquals(SlidingLogStep.DATA + 9_000 / 8, dense.length, "36 ms apart");
        assertEquals(SlidingLogStep.DATA + 2 * 9_000 / 8, sparse.length, "360 ms apart");
        assertEquals(SlidingLogStep.DATA + 9_000 / 8, burst.length, "100 per millisecond");
        long[] many = Algorithms.acquire(spec, null, BASE, 9_000).state();
        assertEquals(SlidingLogStep.DATA + 1, many.length, "one grant of 9,000");
    }

    @Test
    void aLayoutOneLog_isReadAsTheSameTimes_andWrittenBackAsLayoutTwo() {
        LimitSpec.SlidingLog spec = new LimitSpec.SlidingLog(5, 1_000);
        long[] legacy = {LEGACY_HEADER, BASE + 20, BASE + 1_020, BASE, BASE + 10, BASE + 20};
        Verdict probe = Algorithms.acquire(spec, legacy, BASE + 30, 0);
        assertSame(legacy, probe.state(), "a probe of a layout 1 log writes nothing");
        assertEquals(2, probe.remaining());
        Verdict v = Algorithms.acquire(spec, legacy, BASE + 1_005, 2); // the first time has left the window
        assertEquals(1, v.remaining());
        assertEquals(SlidingLogStep.LAYOUT_VERSION, Algorithms.layoutOf(v.state()));
        assertArrayEquals(new long[] {LEGACY_HEADER, BASE + 1_005, BASE + 2_005, BASE + 10, BASE + 20, BASE + 1_005,
                BASE + 1_005}, SlidingLogStep.timestamps(v.state()));
        Verdict refused = Algorithms.acquire(spec, legacy, BASE + 30, 3);
        assertEquals(970, refused.retryAfterMillis());
    }

    @Test
    void merge_ofLayoutOneAndTwo_keepsTheNewestTimesOfBoth() {
        long[] a = {LEGACY_HEADER, BASE + 30, BASE + 1_030, BASE, BASE + 30};
        long[] b = SlidingLogStep.encode(new long[] {LEGACY_HEADER, BASE + 25, BASE + 1_025, BASE + 10, BASE + 20,
                BASE + 25});
        long[] merged = StateMerge.merge(a, b);
        assertArrayEquals(new long[] {LEGACY_HEADER, BASE + 30, BASE + 1_030, BASE + 20, BASE + 25, BASE + 30},
                SlidingLogStep.timestamps(merged));
        long[] older = SlidingLogStep.encode(new long[] {LEGACY_HEADER, BASE + 10, BASE + 1_010, BASE + 10});
        assertSame(b, StateMerge.merge(b, older), "a log that holds the other's times is returned as it is");
    }

    @Test
    void malformedRuns_areRefusedNamingTheState() {
        LimitSpec.SlidingLog spec = new LimitSpec.SlidingLog(5, 1_000);
        long[] state = Algorithms.acquire(spec, null, BASE, 3).state();
        long[] lying = state.clone();
        lying[SlidingLogStep.COUNT] = 2; // the runs hold 3
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SlidingLogStep.timestamps(lying));
        assertTrue(e.getMessage().contains("malformed sliding-log"), e.getMessage());
        long[] overlong = state.clone();
        overlong[SlidingLogStep.SPAN] = 8L * (state.length - SlidingLogStep.DATA) + 1;
        IllegalStateException bad = assertThrows(IllegalStateException.class,
                () -> Algorithms.acquire(spec, overlong, BASE + 1, 1));
        assertTrue(bad.getMessage().contains("malformed"), bad.getMessage());
    }

    private static void assertSameDecision(Verdict expected, Verdict actual, String what) {
        assertEquals(expected.granted(), actual.granted(), what + ": granted");
        assertEquals(expected.remaining(), actual.remaining(), what + ": remaining");
        assertEquals(expected.retryAfterMillis(), actual.retryAfterMillis(), what + ": retry after");
        assertEquals(expected.resetAfterMillis(), actual.resetAfterMillis(), what + ": reset after");
        assertEquals(expected.token(), actual.token(), what + ": granted at");
        assertEquals(expected.ttlMillis(), actual.ttlMillis(), what + ": ttl");
    }

    private static void assertSameTimes(long[] expected, long[] actual, String what) {
        if (expected == null) {
            assertNull(actual, what);
            return;
        }
        assertArrayEquals(expected, SlidingLogStep.timestamps(actual), what + ": times");
    }
}
