package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.LAST_NOW;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER;
import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.header;
import static dev.sluice.limiter.algorithm.Algorithms.shapeOf;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.util.Arrays;

/**
 * A window of {@code s} epoch-aligned segments. State: the absolute index of the newest segment, then a
 * ring of {@code s} counters indexed by {@code absoluteIndex % s}. The window is the current segment and
 * the {@code s - 1} before it; a permit returns when its segment leaves the window.
 *
 * <p>Error bound: any {@code s} consecutive segments hold at most the limit, so any interval of
 * {@code window - segment} holds at most the limit; an arbitrary window-long interval can touch
 * {@code s + 1} segments and so exceed the limit by at most one segment's admissions.
 *
 * <p>State written with a different segment count or length (the spec changed) is carried over
 * conservatively: all its live permits are counted in the current segment.
 */
public final class SlidingWindowStep implements Algorithm {
    /** Its state id. */
    static final int ID = 2;
    static final AlgorithmDescription DESCRIPTION = AlgorithmDescription
            .builder(ID, LimitSpec.SLIDING_WINDOW, LimitSpec.SlidingWindow.class)
            .summary("a window of equal segments aligned to the epoch; permits return when their segment leaves"
                    + " the window")
            .parameters(Parameters.permitLimit("permits per window", LimitSpec.MAX_LIMIT), Parameters.WINDOW,
                    AlgorithmDescription.Parameter.count("segmentsPerWindow", "segments",
                            AlgorithmDescription.Unit.SEGMENTS, 1, LimitSpec.SlidingWindow.MAX_SEGMENTS,
                            "segments the window is divided into, each a whole number of milliseconds"))
            .factory(v -> new LimitSpec.SlidingWindow(v[0], v[1], (int) v[2]),
                    s -> new long[] {s.permitLimit(), s.windowMillis(), s.segmentsPerWindow()})
            .rate(AlgorithmDescription.Accuracy.APPROXIMATION,
                    (limit, window, choice) -> new long[] {limit, window, choice.applyAsLong("segmentsPerWindow")},
                    "segmentsPerWindow")
            .build();

    private static final int NEWEST = HEADER_WORDS;
    private static final int RING = HEADER_WORDS + 1;

    /** For the service loader. */
    public SlidingWindowStep() {}

    @Override
    public AlgorithmDescription description() {
        return DESCRIPTION;
    }

    @Override
    public Verdict run(LimitSpec spec, long[] state, long now, Op op, long permits, long leaseId) {
        return step((LimitSpec.SlidingWindow) spec, state, now, permits);
    }

    @Override
    public long[] refunded(LimitSpec spec, long[] state, long now, long permits, long at) {
        return refund((LimitSpec.SlidingWindow) spec, state, permits, at);
    }

    @Override
    public boolean isWellFormed(long[] state) {
        int segments = shapeOf(state);
        return segments >= 1 && segments <= LimitSpec.SlidingWindow.MAX_SEGMENTS
                && state.length == HEADER_WORDS + 1 + segments;
    }

    /** {@code [header(segments), lastNow, expiresAt, newestSegment, ring...]}. */
    @Override
    public long[] merge(long[] a, long[] b) {
        int newestAt = HEADER_WORDS;
        int ring = HEADER_WORDS + 1;
        int segments = a.length - ring;
        if (segments <= 0 || b.length != a.length) {
            return a[LAST_NOW] > b[LAST_NOW] ? a : b;
        }
        long newest = Math.max(a[newestAt], b[newestAt]);
        long[] merged = new long[a.length];
        merged[HEADER] = a[HEADER];
        merged[newestAt] = newest;
        for (long j = newest - segments + 1; j <= newest; j++) {
            int slot = ring + (int) Math.floorMod(j, (long) segments);
            merged[slot] = Math.max(countAt(a, j, segments), countAt(b, j, segments));
        }
        long[] base = a[newestAt] >= b[newestAt] ? a : b;
        long[] other = base == a ? b : a;
        merged[LAST_NOW] = Math.max(a[LAST_NOW], b[LAST_NOW]);
        merged[EXPIRES_AT] = Math.max(a[EXPIRES_AT], b[EXPIRES_AT]);
        if (Arrays.equals(merged, base)) {
            return base;
        }
        return Arrays.equals(merged, other) ? other : merged;
    }

    private static long countAt(long[] s, long segment, int segments) {
        long newest = s[HEADER_WORDS];
        if (segment > newest || segment <= newest - segments) {
            return 0;
        }
        return s[HEADER_WORDS + 1 + (int) Math.floorMod(segment, (long) segments)];
    }

    static Verdict step(LimitSpec.SlidingWindow spec, long[] state, long now, long permits) {
        int segments = spec.segmentsPerWindow();
        long segment = spec.segmentMillis();
        long limit = spec.permitLimit();
        long current = Math.floorDiv(now, segment);
        long oldest = current - segments + 1;

        long[] counts = new long[segments];
        long total = 0;
        boolean sameShape = true;
        if (state != null) {
            long newest = state[NEWEST];
            int storedSegments = shapeOf(state);
            // The same segment count and length (a state's expiry is its newest segment's window end);
            // otherwise the spec changed, and every live permit is carried into the current segment.
            if (storedSegments == segments && state[EXPIRES_AT] == (newest + segments) * segment) {
                for (long j = Math.max(oldest, newest - segments + 1); j <= newest; j++) {
                    long c = state[RING + Math.floorMod(j, segments)];
                    counts[Math.floorMod(j, segments)] = c;
                    total += c;
                }
            } else {
                sameShape = false;
                long live = 0;
                for (int i = RING; i < state.length; i++) {
                    live += state[i];
                }
                counts[Math.floorMod(current, segments)] = live;
                total = live;
            }
        }
        long resetAfter = total > 0 ? (current + segments) * segment - now : 0;
        long expiresAt = (current + segments) * segment;
        // A decision that takes nothing writes another segmentation's permits as this spec's ring, so they
        // last as long as this spec's window rather than as long as the old one did.
        long[] kept = sameShape ? state : ring(segments, now, expiresAt, current, counts);
        long keptTtl = kept == state ? resetAfter : expiresAt - now;
        if (permits == 0 ? total < limit : total + permits <= limit) {
            if (permits == 0) {
                return Verdict.granted(limit - total, limit, resetAfter, 0, keptTtl, kept);
            }
            long[] updated = ring(segments, now, expiresAt, current, counts);
            updated[RING + Math.floorMod(current, segments)] += permits;
            long ttl = expiresAt - now;
            return Verdict.granted(limit - total - permits, limit, ttl, now, ttl, updated);
        }
        long needed = total + Math.max(permits, 1) - limit;
        long freed = 0;
        long retryAt = (current + segments) * segment;
        for (long j = oldest; j <= current; j++) {
            freed += counts[Math.floorMod(j, segments)];
            if (freed >= needed) {
                retryAt = (j + segments) * segment;
                break;
            }
        }
        return Verdict.refused(Math.max(0, limit - total), limit, retryAt - now, resetAfter, keptTtl, kept);
    }

    private static long[] ring(int segments, long now, long expiresAt, long current, long[] counts) {
        long[] ring = new long[RING + segments];
        ring[0] = header(ID, segments);
        ring[1] = now;
        ring[2] = expiresAt;
        ring[NEWEST] = current;
        System.arraycopy(counts, 0, ring, RING, segments);
        return ring;
    }

    /** The grant at {@code at} counts in its segment while that segment is in the stored ring. */
    static long[] refund(LimitSpec.SlidingWindow spec, long[] state, long permits, long at) {
        int segments = spec.segmentsPerWindow();
        long segment = spec.segmentMillis();
        long newest = state[NEWEST];
        long granted = Math.floorDiv(at, segment);
        if (shapeOf(state) != segments || state[EXPIRES_AT] != (newest + segments) * segment
                || granted > newest || granted <= newest - segments) {
            return state; // another segmentation, or the segment has left the window
        }
        long[] updated = state.clone();
        int slot = RING + Math.floorMod(granted, segments);
        updated[slot] = Math.max(0, state[slot] - permits);
        return updated;
    }
}
