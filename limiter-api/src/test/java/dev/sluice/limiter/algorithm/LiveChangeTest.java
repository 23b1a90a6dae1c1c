package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A limit changed live: a limiter created with a new spec of the same algorithm on a key with state keeps what
 * was consumed (never a fresh budget), and the new spec applies from the next step. The rules, per algorithm:
 * a window's count (fixed, sliding counter) is kept against the new limit, also when the window length
 * changed; a segmented window of another segment count or length carries every live permit into the current
 * segment; a log keeps its timestamps; a bucket's tokens are clamped to the new capacity; GCRA keeps its
 * theoretical arrival time (shifted by under 1 ms when the rate changed); a composite applies these to its
 * components by position.
 */
final class LiveChangeTest {
    private static final java.time.ZoneId PARIS = java.time.ZoneId.of("Europe/Paris");

    /** Old spec, new spec, and how many of 30 requests the new spec grants right after ten were taken. */
    static Stream<Arguments> changes() {
        Duration s = Duration.ofSeconds(1);
        return Stream.of(
                Arguments.of(LimitSpec.fixedWindow(10, Duration.ofMinutes(1)), LimitSpec.fixedWindow(10, Duration.ofHours(1)), 0),
                Arguments.of(LimitSpec.fixedWindow(10, Duration.ofHours(1)), LimitSpec.fixedWindow(10, Duration.ofMinutes(7)), 0),
                Arguments.of(LimitSpec.fixedWindow(10, Duration.ofMinutes(1)), LimitSpec.fixedWindow(16, Duration.ofMinutes(1)), 6),
                Arguments.of(LimitSpec.fixedWindow(10, Duration.ofMinutes(1)), LimitSpec.fixedWindow(6, Duration.ofMinutes(1)), 0),
                Arguments.of(LimitSpec.slidingCounter(10, Duration.ofMinutes(1)), LimitSpec.slidingCounter(10, Duration.ofMinutes(5)), 0),
                Arguments.of(LimitSpec.slidingCounter(10, Duration.ofMinutes(1)), LimitSpec.slidingCounter(12, Duration.ofMinutes(1)), 2),
                Arguments.of(LimitSpec.slidingWindow(10, Duration.ofMinutes(1), 6), LimitSpec.slidingWindow(10, Duration.ofMinutes(2), 6), 0),
                Arguments.of(LimitSpec.slidingWindow(10, Duration.ofMinutes(1), 6), LimitSpec.slidingWindow(15, Duration.ofMinutes(1), 4), 5),
                Arguments.of(LimitSpec.slidingLog(10, Duration.ofMinutes(1)), LimitSpec.slidingLog(10, Duration.ofMinutes(3)), 0),
                Arguments.of(LimitSpec.slidingLog(10, Duration.ofMinutes(1)), LimitSpec.slidingLog(13, Duration.ofMinutes(1)), 3),
                // A bucket keeps its tokens (0 left), clamped to the new capacity: a larger bucket is not refilled.
                Arguments.of(LimitSpec.tokenBucket(10, 1, Duration.ofMinutes(1)), LimitSpec.tokenBucket(20, 1, Duration.ofMinutes(1)), 0),
                Arguments.of(LimitSpec.tokenBucket(10, 1, Duration.ofMinutes(1)), LimitSpec.tokenBucket(10, 1, s), 0),
                // GCRA keeps its theoretical arrival time: ten minutes of debt at one a minute, whatever the burst.
                Arguments.of(LimitSpec.gcra(1, Duration.ofMinutes(1), 10), LimitSpec.gcra(7, Duration.ofMinutes(7), 10), 0),
                Arguments.of(LimitSpec.gcra(1, Duration.ofMinutes(1), 10), LimitSpec.gcra(1, Duration.ofMinutes(1), 12), 2),
                // A calendar window and a fixed window share their state's layout: a change between them keeps the count.
                Arguments.of(LimitSpec.calendarWindow(10, CalendarPeriod.MONTH, PARIS), LimitSpec.calendarWindow(10, CalendarPeriod.DAY, PARIS), 0),
                Arguments.of(LimitSpec.calendarWindow(10, CalendarPeriod.DAY, PARIS), LimitSpec.calendarWindow(14, CalendarPeriod.MONTH, PARIS), 4),
                Arguments.of(LimitSpec.fixedWindow(10, Duration.ofMinutes(1)), LimitSpec.calendarWindow(10, CalendarPeriod.DAY, PARIS), 0),
                Arguments.of(LimitSpec.calendarWindow(10, CalendarPeriod.WEEK, PARIS), LimitSpec.fixedWindow(12, Duration.ofHours(1)), 2),
                Arguments.of(LimitSpec.allOf(LimitSpec.fixedWindow(10, Duration.ofMinutes(1)), LimitSpec.slidingLog(20, Duration.ofHours(1))),
                        LimitSpec.allOf(LimitSpec.fixedWindow(15, Duration.ofMinutes(2)), LimitSpec.slidingLog(30, Duration.ofHours(1))), 5));
    }

    /** Ten taken under the old spec; right after the change no more than the new spec leaves of those ten. */
    @ParameterizedTest
    @MethodSource("changes")
    void newSpecOnLiveState_keepsWhatWasConsumed(LimitSpec before, LimitSpec after, int expected) {
        long now = BASE;
        long[] state = null;
        for (int i = 0; i < 10; i++) {
            Verdict v = Algorithms.acquire(before, state, now, 1);
            assertTrue(v.granted(), "grant " + i + " under " + before);
            state = v.state();
        }
        long grantedAfter = 0;
        for (int i = 0; i < 30; i++) {
            Verdict v = Algorithms.acquire(after, state, now + 1, 1);
            if (v.granted()) {
                grantedAfter++;
                state = v.state();
            }
        }
        assertEquals(expected, grantedAfter, before + " -> " + after + ": the ten already taken count against it");
    }

    /**
     * A rollout: replicas on the old and the new spec decide on one key at once. Each step applies its own
     * spec to the shared consumption, which neither forgets, so within the shorter horizon of the two the key
     * admits at most what the two specs allow between them (each at most twice its limit in an unaligned
     * horizon, as across a window boundary), and never starts over.
     */
    @ParameterizedTest
    @MethodSource("changes")
    void oldAndNewSpecInterleaved_admitAtMostWhatBothAllowPerShorterHorizon(LimitSpec a, LimitSpec b, int unused) {
        Random rnd = new Random(a.hashCode() * 31L + b.hashCode());
        long horizon = Math.min(StepHarness.horizon(a), StepHarness.horizon(b));
        long bothAllow = 2 * (a.limit() + b.limit());
        long now = BASE;
        long[] state = null;
        List<LimitSpec> specs = List.of(a, b);
        long windowStart = now;
        long inWindow = 0;
        for (int i = 0; i < 2_000; i++) {
            now += rnd.nextLong(Math.max(1, horizon / 200));
            if (now - windowStart >= horizon) {
                windowStart = now;
                inWindow = 0;
            }
            Verdict v = Algorithms.acquire(specs.get(rnd.nextInt(2)), state, now, 1);
            if (v.granted()) {
                state = v.state();
                inWindow++;
                assertTrue(inWindow <= bothAllow, "granted " + inWindow + " within one horizon of " + horizon + " ms");
            }
        }
        assertFalse(state == null, "something was granted");
    }
}
