package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.header;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;

/** Windows aligned to the epoch. State: window start, count. */
public final class FixedWindowStep implements Algorithm {
    /** Its state id. */
    static final int ID = 1;
    static final AlgorithmDescription DESCRIPTION = AlgorithmDescription
            .builder(ID, LimitSpec.FIXED_WINDOW, LimitSpec.FixedWindow.class)
            .summary("windows aligned to the epoch, each admitting up to the limit; up to twice the limit across"
                    + " a boundary")
            .parameters(Parameters.permitLimit("permits per window", LimitSpec.MAX_LIMIT), Parameters.WINDOW)
            .factory(v -> new LimitSpec.FixedWindow(v[0], v[1]), s -> new long[] {s.permitLimit(), s.windowMillis()})
            .rate(AlgorithmDescription.Accuracy.OTHER_RULE, (limit, window, choice) -> new long[] {limit, window})
            .build();

    private static final int START = HEADER_WORDS;
    private static final int COUNT = HEADER_WORDS + 1;

    /** For the service loader. */
    public FixedWindowStep() {}

    @Override
    public AlgorithmDescription description() {
        return DESCRIPTION;
    }

    @Override
    public Verdict run(LimitSpec spec, long[] state, long now, Op op, long permits, long leaseId) {
        return step((LimitSpec.FixedWindow) spec, state, now, permits);
    }

    @Override
    public long[] refunded(LimitSpec spec, long[] state, long now, long permits, long at) {
        return refund((LimitSpec.FixedWindow) spec, state, permits, at);
    }

    @Override
    public boolean isWellFormed(long[] state) {
        return state.length == HEADER_WORDS + 2;
    }

    /** Its state and a calendar window's are one layout: a live change between the two keeps the count. */
    @Override
    public boolean readsStateOf(int algorithmId) {
        return algorithmId == ID || algorithmId == CalendarWindowStep.ID;
    }

    /** The same window keeps the higher count; otherwise the newer window. */
    @Override
    public long[] merge(long[] a, long[] b) {
        return StateMerge.windowCounts(a, b, 1);
    }

    static Verdict step(LimitSpec.FixedWindow spec, long[] state, long now, long permits) {
        long window = spec.windowMillis();
        long start = now - Math.floorMod(now, window);
        return inWindow(ID, spec.permitLimit(), start, start + window, state, now, permits);
    }

    /**
     * A decision in the window {@code [start, end)} that holds {@code now}, written as state of algorithm {@code id}:
     * the rule of every window of fixed bounds, an epoch-aligned length here or a calendar's
     * ({@link CalendarWindowStep}).
     */
    static Verdict inWindow(int id, long limit, long start, long end, long[] state, long now, long permits) {
        // Live state is the current window's under the same spec (it expires at its window's end); under a
        // changed window (another length, another calendar period or zone, the other of the two algorithms) its
        // window differs, and its count is kept against the new window: a live change never hands out a fresh
        // budget.
        long count = state != null ? state[COUNT] : 0;
        long untilEnd = end - now;
        long resetAfter = count > 0 ? untilEnd : 0;
        long left = Math.max(0, limit - count); // the count may exceed a limit lowered since it was written
        // A decision that takes nothing still moves another spec's state into this spec's current window, so
        // its count lasts until this window ends rather than until the old one did; this spec's own state is
        // left as it is (no write).
        long[] kept = state == null || (state[START] == start && state[EXPIRES_AT] == end) ? state
                : new long[] {header(id, 0), now, end, start, count};
        long keptTtl = kept == state ? resetAfter : untilEnd;
        if (permits == 0) {
            boolean available = count < limit;
            return available ? Verdict.granted(left, limit, resetAfter, 0, keptTtl, kept)
                    : Verdict.refused(left, limit, untilEnd, resetAfter, keptTtl, kept);
        }
        if (count + permits > limit) {
            return Verdict.refused(left, limit, untilEnd, resetAfter, keptTtl, kept);
        }
        long next = count + permits;
        long[] updated = {header(id, 0), now, end, start, next};
        return Verdict.granted(limit - next, limit, untilEnd, now, untilEnd, updated);
    }

    /** The grant at {@code at} counts in its window, if that window is the stored one. */
    static long[] refund(LimitSpec.FixedWindow spec, long[] state, long permits, long at) {
        long start = at - Math.floorMod(at, spec.windowMillis());
        return refundIn(start, start + spec.windowMillis(), state, permits);
    }

    /**
     * The state with {@code permits} given back if it is the window {@code [start, end)} of the grant, else
     * {@code state} itself: the grant no longer counts there (another window, or one of another length).
     */
    static long[] refundIn(long start, long end, long[] state, long permits) {
        if (state[START] != start || state[EXPIRES_AT] != end) {
            return state;
        }
        long[] updated = state.clone();
        updated[COUNT] = Math.max(0, state[COUNT] - permits);
        return updated;
    }
}
