package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.SLIDING_LOG;
import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.LAST_NOW;
import static dev.sluice.limiter.algorithm.Algorithms.header;

import dev.sluice.limiter.LimitSpec;

/**
 * Exact sliding window. State: one timestamp per admitted permit, oldest first. A permit admitted at
 * {@code t} counts until {@code t + window}. Since the state is copied on every write anyway, a sorted
 * array serves as well as a ring and survives a change of the limit without conversion.
 */
final class SlidingLogStep {
    private SlidingLogStep() {}

    static Verdict step(LimitSpec.SlidingLog spec, long[] state, long now, long permits) {
        long window = spec.windowMillis();
        long limit = spec.permitLimit();
        int first = HEADER_WORDS;
        int end = state == null ? HEADER_WORDS : state.length;
        while (first < end && state[first] + window <= now) {
            first++;
        }
        int live = end - first;
        long resetAfter = live > 0 ? state[end - 1] + window - now : 0;
        // A decision that takes nothing moves the expiry of a log written under another window length to this
        // spec's, so its timestamps count for as long as this window says; this spec's own log is left as it is.
        long[] kept = state;
        if (live > 0 && state[EXPIRES_AT] != state[end - 1] + window) {
            kept = state.clone();
            kept[LAST_NOW] = now;
            kept[EXPIRES_AT] = state[end - 1] + window;
        }
        if (permits == 0 ? live < limit : live + permits <= limit) {
            if (permits == 0) {
                return Verdict.granted(limit - live, limit, resetAfter, 0, resetAfter, kept);
            }
            long[] updated = new long[HEADER_WORDS + live + (int) permits];
            updated[0] = header(SLIDING_LOG, 0);
            updated[1] = now;
            updated[2] = now + window;
            if (live > 0) {
                System.arraycopy(state, first, updated, HEADER_WORDS, live);
            }
            java.util.Arrays.fill(updated, HEADER_WORDS + live, updated.length, now);
            return Verdict.granted(limit - live - permits, limit, window, now, window, updated);
        }
        // The request fits once the oldest `needed` entries have left the window.
        long needed = live + Math.max(permits, 1) - limit;
        long retryAt = state[first + (int) needed - 1] + window;
        return Verdict.refused(Math.max(0, limit - live), limit, retryAt - now, resetAfter, resetAfter, kept);
    }

    /**
     * Removes up to {@code permits} entries stamped {@code at}: the grant's own, or another's of the same
     * millisecond, which counts identically.
     */
    static long[] refund(LimitSpec.SlidingLog spec, long[] state, long permits, long at) {
        int last = state.length - 1;
        while (last >= HEADER_WORDS && state[last] > at) {
            last--;
        }
        int first = last;
        while (first >= HEADER_WORDS && state[first] == at && last - first < permits) {
            first--;
        }
        int removed = last - first;
        if (removed == 0) {
            return state;
        }
        long[] updated = new long[state.length - removed];
        System.arraycopy(state, 0, updated, 0, first + 1);
        System.arraycopy(state, last + 1, updated, first + 1, state.length - last - 1);
        // The log still expires a window after its latest entry, as every step of this spec leaves it; an
        // empty log is no state at all.
        updated[EXPIRES_AT] = updated.length > HEADER_WORDS ? updated[updated.length - 1] + spec.windowMillis()
                : updated[LAST_NOW];
        return updated;
    }
}
