package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.header;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;

/**
 * Epoch-aligned windows; the estimate is {@code ceil(previous * (window - elapsed) / window) + current}.
 * State: current window start, previous count, current count.
 *
 * <p>Error bound: every aligned window holds at most the limit; a window-long interval starting at
 * {@code elapsed} into a window holds at most {@code limit + previous * elapsed / window}, below twice the
 * limit, and the estimate is exact when the previous window's arrivals were uniform.
 */
public final class SlidingCounterStep implements Algorithm {
    /** Its state id. */
    static final int ID = 4;
    static final AlgorithmDescription DESCRIPTION = AlgorithmDescription
            .builder(ID, LimitSpec.SLIDING_COUNTER, LimitSpec.SlidingCounter.class)
            .summary("the previous window's count weighted by its overlap, plus the current window's count")
            .parameters(Parameters.permitLimit("permits per window", LimitSpec.MAX_LIMIT), Parameters.WINDOW)
            .factory(v -> new LimitSpec.SlidingCounter(v[0], v[1]),
                    s -> new long[] {s.permitLimit(), s.windowMillis()})
            .rate(AlgorithmDescription.Accuracy.APPROXIMATION, (limit, window, choice) -> new long[] {limit, window})
            .build();

    private static final int START = HEADER_WORDS;
    private static final int PREVIOUS = HEADER_WORDS + 1;
    private static final int CURRENT = HEADER_WORDS + 2;

    /** For the service loader. */
    public SlidingCounterStep() {}

    @Override
    public AlgorithmDescription description() {
        return DESCRIPTION;
    }

    @Override
    public Verdict run(LimitSpec spec, long[] state, long now, Op op, long permits, long leaseId) {
        return step((LimitSpec.SlidingCounter) spec, state, now, permits);
    }

    @Override
    public long[] refunded(LimitSpec spec, long[] state, long now, long permits, long at) {
        return refund((LimitSpec.SlidingCounter) spec, state, permits, at);
    }

    @Override
    public boolean isWellFormed(long[] state) {
        return state.length == HEADER_WORDS + 3;
    }

    /** {@code [header, lastNow, expiresAt, start, previous, current]}. */
    @Override
    public long[] merge(long[] a, long[] b) {
        int start = HEADER_WORDS;
        int previous = HEADER_WORDS + 1;
        int current = HEADER_WORDS + 2;
        if (a[start] == b[start]) {
            return StateMerge.windowCounts(a, b, 2);
        }
        long[] newer = a[start] > b[start] ? a : b;
        long[] older = newer == a ? b : a;
        long window = newer[EXPIRES_AT] - newer[start] - (older[EXPIRES_AT] - older[start]) == 0
                ? (newer[EXPIRES_AT] - newer[start]) / 2 : -1;
        if (window > 0 && older[start] + window == newer[start] && older[current] > newer[previous]) {
            long[] merged = newer.clone();
            merged[previous] = older[current];
            return StateMerge.finish(merged, a, b, true);
        }
        return newer;
    }

    static Verdict step(LimitSpec.SlidingCounter spec, long[] state, long now, long permits) {
        long window = spec.windowMillis();
        long limit = spec.permitLimit();
        long start = now - Math.floorMod(now, window);
        long previous = 0;
        long current = 0;
        boolean sameWindow = true;
        if (state != null) {
            // This spec's state expires two windows after its start; any other live state was written under
            // another window length (a live change).
            sameWindow = state[EXPIRES_AT] == state[START] + 2 * window;
            if (!sameWindow) {
                // Every count still live by its own spec is carried into this spec's current window, as the sliding
                // window carries another segmentation's: kept as this spec's previous window, a count taken within
                // this window would be weighted down as if a whole window old, and the key would start over early.
                long oldWindow = (state[EXPIRES_AT] - state[START]) / 2;
                current = state[CURRENT] + (now < state[START] + oldWindow ? state[PREVIOUS] : 0);
            } else if (state[START] == start) {
                previous = state[PREVIOUS];
                current = state[CURRENT];
            } else if (state[START] == start - window) {
                previous = state[CURRENT];
            }
        }
        long elapsed = now - start;
        long estimate = weighted(previous, window - elapsed, window) + current;
        long resetAfter = current > 0 ? start + 2 * window - now : previous > 0 ? start + window - now : 0;
        long asked = Math.max(permits, 1);
        // A decision that takes nothing writes another window length's counts as this spec's current window,
        // so they last as long as this spec keeps a window rather than as long as the old one did.
        long[] kept = sameWindow ? state
                : new long[] {header(ID, 0), now, start + 2 * window, start, previous, current};
        long keptTtl = kept == state ? resetAfter : start + 2 * window - now;
        if (estimate + asked <= limit) {
            if (permits == 0) {
                return Verdict.granted(limit - estimate, limit, resetAfter, 0, keptTtl, kept);
            }
            long expiresAt = start + 2 * window;
            long[] updated = {header(ID, 0), now, expiresAt, start, previous, current + permits};
            long ttl = expiresAt - now;
            return Verdict.granted(limit - estimate - permits, limit, ttl, now, ttl, updated);
        }
        long retryAt;
        long room = limit - current - asked;
        if (room >= 0 && elapsedNeeded(previous, room, window) < window) {
            retryAt = start + elapsedNeeded(previous, room, window);
        } else {
            // In the next window the current count becomes the previous one, weighted down as time passes.
            retryAt = start + window + (current == 0 ? 0 : elapsedNeeded(current, limit - asked, window));
        }
        return Verdict.refused(Math.max(0, limit - estimate), limit, retryAt - now, resetAfter, keptTtl, kept);
    }

    /** The grant at {@code at} counts in the stored current or previous window, whichever it fell in. */
    static long[] refund(LimitSpec.SlidingCounter spec, long[] state, long permits, long at) {
        long window = spec.windowMillis();
        long start = state[START];
        if (state[EXPIRES_AT] != start + 2 * window) {
            return state; // written under another window length: its counts are not this grant's windows
        }
        long granted = at - Math.floorMod(at, window);
        int slot = granted == start ? CURRENT : granted == start - window ? PREVIOUS : -1;
        if (slot < 0) {
            return state;
        }
        long[] updated = state.clone();
        updated[slot] = Math.max(0, state[slot] - permits);
        return updated;
    }

    /** {@code ceil(count * remainingMillis / window)}; the spec's bounds keep the product in range. */
    private static long weighted(long count, long remainingMillis, long window) {
        return Algorithms.ceilDiv(count * remainingMillis, window);
    }

    /** Smallest elapsed time at which {@code weighted(count, window - elapsed) <= room}. */
    private static long elapsedNeeded(long count, long room, long window) {
        if (count == 0) {
            return 0;
        }
        return Math.max(0, window - Math.floorDiv(room * window, count));
    }
}
