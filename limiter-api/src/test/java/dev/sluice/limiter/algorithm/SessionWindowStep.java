package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.header;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.AlgorithmDescription.Parameter;
import dev.sluice.limiter.AlgorithmDescription.Unit;
import dev.sluice.limiter.LimitSpec;
import java.time.Duration;

/**
 * A test-only algorithm, added the way a real one is: this one file (its spec, its description, its step) and a
 * line in {@code META-INF/services/dev.sluice.limiter.algorithm.Algorithm} (test resources). A window that starts
 * at a key's first request rather than on the epoch; up to the limit in it. {@code NewAlgorithmTest} shows every
 * consumer sees it.
 */
public final class SessionWindowStep implements Algorithm {
    static final int ID = 200;
    static final String NAME = "session-window";
    /** The most permits in a session window: lower than other algorithms', so a bound visibly comes from here. */
    static final long MAX_PERMITS = 1_000;

    private static final int START = HEADER_WORDS;
    private static final int COUNT = HEADER_WORDS + 1;

    static final AlgorithmDescription DESCRIPTION = AlgorithmDescription
            .builder(ID, NAME, SessionWindow.class)
            .summary("a window from a key's first request; up to the limit in it")
            .parameters(Parameter.count("permitLimit", "permit-limit", Unit.PERMITS, 1, MAX_PERMITS,
                            "permits per window"),
                    Parameter.duration("window", "window", Duration.ofMillis(1), LimitSpec.MAX_DURATION,
                            "the window's length").withDefault(60_000))
            .factory(v -> new SessionWindow(v[0], v[1]), s -> new long[] {s.permitLimit(), s.windowMillis()})
            .rate(AlgorithmDescription.Accuracy.OTHER_RULE, (limit, window, choice) -> new long[] {limit, window})
            .build();

    /** Its spec. */
    public record SessionWindow(long permitLimit, long windowMillis) implements LimitSpec {
        public SessionWindow {
            AlgorithmDescription.of(SessionWindow.class).check(permitLimit, windowMillis);
        }

        @Override
        public long limit() {
            return permitLimit;
        }
    }

    /** For the service loader. */
    public SessionWindowStep() {}

    @Override
    public AlgorithmDescription description() {
        return DESCRIPTION;
    }

    @Override
    public Verdict run(LimitSpec spec, long[] state, long now, Op op, long permits, long leaseId) {
        SessionWindow s = (SessionWindow) spec;
        long limit = s.permitLimit();
        long start = state == null ? now : state[START];
        long end = start + s.windowMillis();
        long count = state == null ? 0 : state[COUNT];
        long left = Math.max(0, limit - count);
        long ttl = state == null ? 0 : end - now;
        if (permits == 0 ? count >= limit : count + permits > limit) {
            return Verdict.refused(left, limit, end - now, ttl, ttl, state);
        }
        if (permits == 0) {
            return Verdict.granted(left, limit, ttl, 0, ttl, state);
        }
        long[] updated = {header(ID, 0), now, end, start, count + permits};
        return Verdict.granted(limit - count - permits, limit, end - now, now, end - now, updated);
    }

    @Override
    public long[] refunded(LimitSpec spec, long[] state, long now, long permits, long at) {
        if (at < state[START] || at >= state[EXPIRES_AT]) {
            return state; // granted in an earlier window
        }
        long[] updated = state.clone();
        updated[COUNT] = Math.max(0, state[COUNT] - permits);
        return updated;
    }

    @Override
    public boolean isWellFormed(long[] state) {
        return state.length == HEADER_WORDS + 2;
    }

    /** The same window keeps the higher count; otherwise the newer window. */
    @Override
    public long[] merge(long[] a, long[] b) {
        return StateMerge.windowCounts(a, b, 1);
    }
}
