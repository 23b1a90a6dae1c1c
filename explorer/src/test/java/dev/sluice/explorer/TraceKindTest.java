package dev.sluice.explorer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

final class TraceKindTest {
    private static final long LIMIT = 100;
    private static final long WINDOW = 60_000;
    private static final long WINDOWS = 60;

    private static Trace trace(TraceKind kind, long seed) {
        return kind.generate(LIMIT, WINDOW, WINDOWS * WINDOW, seed);
    }

    @ParameterizedTest
    @EnumSource(TraceKind.class)
    void generate_sameSeed_sameArrivals(TraceKind kind) {
        Trace a = trace(kind, 42);
        Trace b = trace(kind, 42);
        assertArrayEquals(a.times(), b.times());
        assertArrayEquals(a.keys(), b.keys());
        assertEquals(a.keyCount(), b.keyCount());
    }

    @ParameterizedTest
    @EnumSource(TraceKind.class)
    void generate_otherSeed_otherArrivals(TraceKind kind) {
        assertFalse(Arrays.equals(trace(kind, 42).times(), trace(kind, 43).times()));
    }

    @ParameterizedTest
    @EnumSource(TraceKind.class)
    void generate_arrivalsInTimeOrderInsideTheTrace(TraceKind kind) {
        Trace t = trace(kind, 7);
        assertEquals(TraceKind.START, t.start());
        assertEquals(TraceKind.START + WINDOWS * WINDOW, t.end());
        assertTrue(t.size() > 0);
        for (int i = 0; i < t.size(); i++) {
            assertTrue(t.times()[i] >= t.start() && t.times()[i] < t.end(), "arrival " + i + " outside the trace");
            assertTrue(i == 0 || t.times()[i - 1] <= t.times()[i], "arrival " + i + " out of order");
            assertTrue(t.keys()[i] >= 0 && t.keys()[i] < t.keyCount());
        }
    }

    @Test
    void steady_arrivesAtItsRate() {
        assertWithin(0.5 * LIMIT * WINDOWS, trace(TraceKind.STEADY_HALF, 42).size(), 0.06);
        assertWithin(2.0 * LIMIT * WINDOWS, trace(TraceKind.STEADY_DOUBLE, 42).size(), 0.06);
    }

    @Test
    void boundary_oneLimitEachSideOfABoundary_everyFourWindows() {
        Trace t = trace(TraceKind.BOUNDARY, 42);
        long span = WINDOW / 10;
        long first = (Math.floorDiv(t.start() - 1, WINDOW) + 2) * WINDOW;
        int bursts = 0;
        for (long boundary = first; boundary + span <= t.end(); boundary += 4 * WINDOW) {
            assertEquals(LIMIT, count(t, boundary - span, boundary), "before " + boundary);
            assertEquals(LIMIT, count(t, boundary, boundary + span), "after " + boundary);
            bursts++;
        }
        assertEquals(15, bursts);
        assertEquals(bursts * 2 * LIMIT, t.size(), "nothing arrives outside the bursts");
        assertEquals(0, Math.floorMod(first, WINDOW), "bursts straddle a window boundary of the epoch");
    }

    @Test
    void clients_oneHeavyKeyAndTwentySmallOnes() {
        Trace t = trace(TraceKind.CLIENTS, 42);
        assertEquals(21, t.keyCount());
        long[] perKey = new long[t.keyCount()];
        for (int key : t.keys()) {
            perKey[key]++;
        }
        assertWithin(3.0 * LIMIT * WINDOWS, perKey[0], 0.06);
        for (int key = 1; key < perKey.length; key++) {
            assertWithin(0.25 * LIMIT * WINDOWS, perKey[key], 0.2);
        }
    }

    @Test
    void diurnal_quietAtNightBusyAtNoon_oneLimitOnAverage() {
        Trace t = trace(TraceKind.DIURNAL, 42);
        long length = t.end() - t.start();
        long night = count(t, t.start(), t.start() + length / 10);
        long noon = count(t, t.start() + length * 9 / 20, t.start() + length * 11 / 20);
        assertTrue(noon > 5 * night, "noon " + noon + " vs night " + night);
        assertWithin(1.0 * LIMIT * WINDOWS, t.size(), 0.06);
    }

    @Test
    void bursty_burstsAboveTheLimitWithQuietGaps_oneLimitOnAverage() {
        Trace t = trace(TraceKind.BURSTY, 42);
        long longestGap = 0;
        for (int i = 1; i < t.size(); i++) {
            longestGap = Math.max(longestGap, t.times()[i] - t.times()[i - 1]);
        }
        assertTrue(longestGap >= WINDOW, "a gap of a window or more, was " + longestGap + " ms");
        long busiestWindow = 0;
        for (long w = t.start(); w < t.end(); w += WINDOW / 2) {
            busiestWindow = Math.max(busiestWindow, count(t, w, w + WINDOW));
        }
        assertTrue(busiestWindow > 1.5 * LIMIT, "a burst above the limit, busiest window " + busiestWindow);
        assertWithin(1.0 * LIMIT * WINDOWS, t.size(), 0.25);
    }

    private static long count(Trace t, long from, long to) {
        return Arrays.stream(t.times()).filter(x -> x >= from && x < to).count();
    }

    private static void assertWithin(double expected, long actual, double tolerance) {
        assertTrue(Math.abs(actual - expected) <= tolerance * expected,
                "expected " + expected + " ± " + (tolerance * 100) + "%, was " + actual);
    }
}
