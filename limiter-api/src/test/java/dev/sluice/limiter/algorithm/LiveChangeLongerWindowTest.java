package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.StepRunner.Outcome;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A limit changed live to a longer window or a slower refill, on the steps as a backend applies them
 * ({@link StepRunner}: a verdict's state is written, kept or removed). Regression: a refusal wrote nothing, so
 * the state kept the old spec's expiry and read as absent once it passed: ten taken under one minute, refused
 * at 30 s under one hour, then ten more granted at 61 s (121 s for the sliding counter), 20 in an hour against
 * a limit of 10. Now a decision by the new spec, refused or granted, moves the state to the new spec's expiry.
 */
final class LiveChangeLongerWindowTest {
    private static final Duration MINUTE = Duration.ofMinutes(1);
    private static final Duration HOUR = Duration.ofHours(1);

    /** Old spec, new spec, and the end of the new spec's hold on the ten taken at BASE once it has touched them. */
    static Stream<Arguments> longer() {
        long hour = HOUR.toMillis();
        long touch = BASE + 30_000;
        long alignedHourEnd = touch - Math.floorMod(touch, hour) + hour;
        long segment = hour / 6;
        long segmentedEnd = (Math.floorDiv(touch, segment) + 6) * segment;
        return Stream.of(
                Arguments.of(LimitSpec.slidingLog(10, MINUTE), LimitSpec.slidingLog(10, HOUR), BASE + hour),
                Arguments.of(LimitSpec.fixedWindow(10, MINUTE), LimitSpec.fixedWindow(10, HOUR), alignedHourEnd),
                Arguments.of(LimitSpec.slidingWindow(10, MINUTE, 6), LimitSpec.slidingWindow(10, HOUR, 6), segmentedEnd),
                // The counter's ten become the current hour's count; past that hour they weigh as the previous one.
                Arguments.of(LimitSpec.slidingCounter(10, MINUTE), LimitSpec.slidingCounter(10, HOUR), alignedHourEnd),
                // A bucket keeps its tokens (none) and its refill phase; the new spec refills one an hour from there.
                Arguments.of(LimitSpec.tokenBucket(10, 10, MINUTE), LimitSpec.tokenBucket(10, 1, HOUR), BASE + hour),
                Arguments.of(LimitSpec.allOf(LimitSpec.fixedWindow(10, MINUTE), LimitSpec.slidingLog(20, MINUTE)),
                        LimitSpec.allOf(LimitSpec.fixedWindow(10, HOUR), LimitSpec.slidingLog(20, HOUR)), alignedHourEnd));
    }

    /** One key's entry as a backend keeps it. */
    private static final class Entry {
        long[] state;

        boolean decide(LimitSpec spec, long now, long permits) {
            Outcome o = StepRunner.run(spec, Op.ACQUIRE, permits, 0, state, now);
            if (o.action() == Outcome.Action.WRITE) {
                state = o.state();
            } else if (o.action() == Outcome.Action.REMOVE) {
                state = null;
            }
            return o.verdict().granted();
        }
    }

    private static Entry tenTaken(LimitSpec before) {
        Entry entry = new Entry();
        for (int i = 0; i < 10; i++) {
            assertTrue(entry.decide(before, BASE, 1), "grant " + i + " under " + before);
        }
        return entry;
    }

    /** Touched by the new spec (a refusal at 30 s): nothing more is granted until the new spec's hold ends. */
    @ParameterizedTest
    @MethodSource("longer")
    void touchedByTheNewSpec_neverStartsOverWithinTheNewWindow(LimitSpec before, LimitSpec after, long holdEnds) {
        Entry entry = tenTaken(before);
        assertTrue(!entry.decide(after, BASE + 30_000, 1), "refused at 30 s");
        int granted = 0;
        for (long now = BASE + 30_001; now < holdEnds; now += 7_001) {
            granted += entry.decide(after, now, 1) ? 1 : 0;
        }
        granted += entry.decide(after, holdEnds - 1, 1) ? 1 : 0;
        assertEquals(0, granted, before + " -> " + after + ": granted before " + (holdEnds - BASE) + " ms");
        assertTrue(entry.decide(after, holdEnds + (after instanceof LimitSpec.SlidingCounter ? HOUR.toMillis() : 0), 1),
                "the new spec grants again once its own window has passed");
    }

    /** A probe by the new spec is a decision too: it moves the expiry, and the key does not start over. */
    @ParameterizedTest
    @MethodSource("longer")
    void probedByTheNewSpec_neverStartsOverWithinTheNewWindow(LimitSpec before, LimitSpec after, long holdEnds) {
        Entry entry = tenTaken(before);
        assertTrue(!entry.decide(after, BASE + 30_000, 0), "a probe finds no room");
        assertTrue(!entry.decide(after, BASE + 2 * MINUTE.toMillis() + 1, 1), "past the old spec's expiry");
        assertTrue(!entry.decide(after, holdEnds - 1, 1));
    }

    /**
     * Untouched by the new spec until the old state's own expiry: that state reads as absent and the key
     * starts over under the new spec (the documented limit of the rule; no decision ever saw the change).
     */
    @ParameterizedTest
    @MethodSource("longer")
    void untouchedUntilTheOldExpiry_startsOver(LimitSpec before, LimitSpec after, long holdEnds) {
        Entry entry = tenTaken(before);
        long oldExpiry = Algorithms.expiresAt(entry.state);
        assertTrue(oldExpiry < holdEnds);
        int granted = 0;
        for (int i = 0; i < 10; i++) {
            granted += entry.decide(after, oldExpiry, 1) ? 1 : 0;
        }
        assertEquals(10, granted, before + " -> " + after + " first asked at the old expiry");
    }

    /** A refusal under the spec that wrote the state writes nothing: the common refusal stays free. */
    @ParameterizedTest
    @MethodSource("longer")
    void refusalUnderTheSameSpec_writesNothing(LimitSpec before, LimitSpec after, long holdEnds) {
        for (LimitSpec spec : new LimitSpec[] {before, after}) {
            Entry entry = tenTaken(spec);
            long[] written = entry.state;
            for (long now = BASE; now < BASE + 30_000; now += 997) {
                Outcome o = StepRunner.run(spec, Op.ACQUIRE, 1, 0, entry.state, now);
                assertEquals(Outcome.Action.KEEP, o.action(), spec + " at " + (now - BASE));
            }
            assertTrue(written == entry.state);
        }
    }

    /**
     * A sliding counter's permits taken across one of the old windows' turns (five just before it, five just after,
     * the counter full) all lie in the new spec's current window: touched, the new spec holds all ten until that
     * window ends. Regression, found on the real clock: the old previous window's five were kept as the new spec's
     * previous window, weighted down as if a whole hour old, and the new spec granted again within its own window.
     */
    @org.junit.jupiter.api.Test
    void slidingCounter_permitsTakenAcrossAnOldWindowTurn_allHeldByTheNewWindow() {
        long hour = HOUR.toMillis();
        long hourStart = BASE - Math.floorMod(BASE, hour) + hour;
        long turn = hourStart + MINUTE.toMillis(); // an old window's turn, early in the new spec's window
        LimitSpec before = LimitSpec.slidingCounter(10, MINUTE);
        LimitSpec after = LimitSpec.slidingCounter(10, HOUR);
        Entry entry = new Entry();
        for (int i = 0; i < 5; i++) {
            assertTrue(entry.decide(before, turn - 1_000, 1), "grant " + i + " before the turn");
        }
        for (int i = 0; i < 5; i++) {
            assertTrue(entry.decide(before, turn + 1_000, 1), "grant " + i + " after the turn");
        }
        assertTrue(!entry.decide(before, turn + 1_000, 1), "the old spec is full");
        assertTrue(!entry.decide(after, turn + 2_000, 1), "touched by the new spec");
        int granted = 0;
        for (long now = turn + 2_001; now < hourStart + hour; now += 7_001) {
            granted += entry.decide(after, now, 1) ? 1 : 0;
        }
        assertEquals(0, granted, "granted within the new spec's window, which holds all ten");
    }
}
