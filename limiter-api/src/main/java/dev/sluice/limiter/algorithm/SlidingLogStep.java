package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.LAST_NOW;
import static dev.sluice.limiter.algorithm.Algorithms.header;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.util.Arrays;

/**
 * Exact sliding window: the admission time of every permit, oldest first. A permit admitted at {@code t} counts
 * until {@code t + window}.
 *
 * <p>Layout 2 keeps the times as runs, {@code (milliseconds since the previous run, permits)}, each a varint of
 * {@code delta << 1 | several}, followed by a varint of the permits when there are several, in a byte stream
 * over the trailing words (little-endian within a word). The header holds what a step needs without reading the
 * runs: the permits in them, the time the first run counts from, the latest run's time, and the stream's first and
 * end byte. So a grant reads only the runs that expired, copies the rest word by word (the stream keeps its
 * offset within a word, so nothing is shifted) and appends one run; that is one to two bytes per grant when
 * grants are spread evenly over a window (less when several share a millisecond, one byte per further grant of
 * the same millisecond) instead of eight. A refusal reads the runs up to the one that must leave for the request
 * to fit. A refund and a merge rewrite the log.
 *
 * <p>Layout 1, one word per permit, is still read (as the same times) and written back as layout 2 by the next
 * step that changes it.
 */
public final class SlidingLogStep implements Algorithm {
    /** Its state id. */
    static final int ID = 3;
    /** The layout version: 2 keeps the times as runs in a byte stream; layout 1 is still read and written back as 2. */
    static final int LAYOUT_VERSION = 2;
    static final AlgorithmDescription DESCRIPTION = AlgorithmDescription
            .builder(ID, LimitSpec.SLIDING_LOG, LimitSpec.SlidingLog.class)
            .summary("exact: at most the limit in any interval one window long; state grows with the limit")
            .parameters(Parameters.permitLimit("permits per window", LimitSpec.MAX_LOG_LIMIT), Parameters.WINDOW)
            .factory(v -> new LimitSpec.SlidingLog(v[0], v[1]), s -> new long[] {s.permitLimit(), s.windowMillis()})
            .rate(AlgorithmDescription.Accuracy.EXACT, (limit, window, choice) -> new long[] {limit, window})
            .build();

    /** The layout with one timestamp word per permit. */
    static final int LEGACY_LAYOUT = 1;
    /** Permits held in the runs (expired ones included until a step drops them). */
    static final int COUNT = HEADER_WORDS;
    /** The time the first run's delta counts from. */
    static final int BASE = HEADER_WORDS + 1;
    /** The latest run's time. */
    static final int LAST = HEADER_WORDS + 2;
    /** The stream's first byte in the high 32 bits, its end byte in the low 32, counted from {@link #DATA}. */
    static final int SPAN = HEADER_WORDS + 3;
    /** The first word of the stream. */
    static final int DATA = HEADER_WORDS + 4;
    /** The longest run: a varint of the tagged delta and one of the permits. */
    private static final int MAX_RUN_BYTES = 20;

    /** For the service loader. */
    public SlidingLogStep() {}

    @Override
    public AlgorithmDescription description() {
        return DESCRIPTION;
    }

    @Override
    public Verdict run(LimitSpec spec, long[] state, long now, Op op, long permits, long leaseId) {
        return step((LimitSpec.SlidingLog) spec, state, now, permits);
    }

    @Override
    public long[] refunded(LimitSpec spec, long[] state, long now, long permits, long at) {
        return refund((LimitSpec.SlidingLog) spec, state, permits, at);
    }

    @Override
    public boolean isWellFormed(long[] state) {
        return isWellFormedLog(state);
    }

    /** {@code [header, lastNow, expiresAt, t1 <= t2 <= ...]}: the newest max(n1, n2) of both logs. */
    @Override
    public long[] merge(long[] stateA, long[] stateB) {
        long[] a = timestamps(stateA);
        long[] b = timestamps(stateB);
        int n = Math.max(a.length, b.length) - HEADER_WORDS;
        long[] all = new long[a.length + b.length - 2 * HEADER_WORDS];
        System.arraycopy(a, HEADER_WORDS, all, 0, a.length - HEADER_WORDS);
        System.arraycopy(b, HEADER_WORDS, all, a.length - HEADER_WORDS, b.length - HEADER_WORDS);
        Arrays.sort(all);
        long[] merged = new long[HEADER_WORDS + n];
        merged[HEADER] = a[HEADER];
        merged[LAST_NOW] = Math.max(a[LAST_NOW], b[LAST_NOW]);
        merged[EXPIRES_AT] = Math.max(a[EXPIRES_AT], b[EXPIRES_AT]);
        System.arraycopy(all, all.length - n, merged, HEADER_WORDS, n);
        if (Arrays.equals(merged, a)) {
            return stateA;
        }
        return Arrays.equals(merged, b) ? stateB : encode(merged);
    }

    @Override
    public int layoutVersion() {
        return LAYOUT_VERSION;
    }

    @Override
    public boolean reads(int layout) {
        return isReadable(layout);
    }

    @Override
    public long[] upgrade(long[] state) {
        return upgradeLog(state);
    }

    @Override
    public boolean isCompact() {
        return true;
    }

    /** True if {@code layout} is a sliding-log layout this code reads (1 and 2). */
    static boolean isReadable(int layout) {
        return layout == LEGACY_LAYOUT || layout == LAYOUT_VERSION;
    }

    /** Whether layout 2 words hold a consistent header: a stream that fits the words and a count of none or more. */
    static boolean isWellFormedLog(long[] state) {
        if (Algorithms.layoutOf(state) == LEGACY_LAYOUT) {
            return true;
        }
        if (state.length < DATA) {
            return false;
        }
        long start = state[SPAN] >>> 32;
        long end = state[SPAN] & 0xFFFF_FFFFL;
        return start <= end && end <= 8L * (state.length - DATA) && state[COUNT] >= 0
                && (state[COUNT] == 0) == (start == end);
    }

    /** Layout 1 state as layout 2 (the same times); layout 2 state as it is. */
    static long[] upgradeLog(long[] state) {
        return state == null || Algorithms.layoutOf(state) != LEGACY_LAYOUT ? state : encode(state);
    }

    static Verdict step(LimitSpec.SlidingLog spec, long[] state, long now, long permits) {
        long window = spec.windowMillis();
        long limit = spec.permitLimit();
        long count = 0;
        long last = now;
        int end = 0;
        Runs runs = null;
        long liveBase = now;
        int liveStart = 0;
        long expired = 0;
        if (state != null) {
            count = state[COUNT];
            last = state[LAST];
            end = (int) state[SPAN];
            runs = new Runs(state);
            liveStart = runs.pos;
            liveBase = runs.time;
            while (runs.pos < end) {
                runs.next();
                if (runs.time + window > now) {
                    break;
                }
                expired += runs.permits;
                liveStart = runs.pos;
                liveBase = runs.time;
            }
        }
        long live = count - expired;
        long resetAfter = live > 0 ? last + window - now : 0;
        // A decision that takes nothing moves the expiry of a log written under another window length to this
        // spec's, so its times count for as long as this window says; this spec's own log is left as it is.
        long[] kept = state;
        if (live > 0 && state[EXPIRES_AT] != last + window) {
            kept = state.clone();
            kept[LAST_NOW] = now;
            kept[EXPIRES_AT] = last + window;
        }
        if (permits == 0 ? live < limit : live + permits <= limit) {
            if (permits == 0) {
                return Verdict.granted(limit - live, limit, resetAfter, 0, resetAfter, kept);
            }
            long[] updated = live > 0 ? append(state, liveStart, end, liveBase, live, now - last, permits)
                    : append(null, 0, 0, now, 0, 0, permits);
            updated[LAST_NOW] = now;
            updated[EXPIRES_AT] = now + window;
            updated[LAST] = now;
            return Verdict.granted(limit - live - permits, limit, window, now, window, updated);
        }
        // The request fits once the oldest `needed` permits have left the window.
        long needed = live + Math.max(permits, 1) - limit;
        Runs oldest = new Runs(state, liveStart, liveBase);
        long passed = 0;
        while (passed < needed) {
            oldest.next();
            passed += oldest.permits;
        }
        long retryAt = oldest.time + window;
        return Verdict.refused(Math.max(0, limit - live), limit, retryAt - now, resetAfter, resetAfter, kept);
    }

    /**
     * The stream's bytes from {@code from} to {@code end} of {@code state} (none when it is null), word-aligned as
     * they were, followed by a run of {@code permits} {@code delta} after the last; the header but for the times.
     */
    private static long[] append(long[] state, int from, int end, long base, long held, long delta, long permits) {
        byte[] run = new byte[MAX_RUN_BYTES];
        int runBytes = WordStream.putVarint(run, 0, delta << 1 | (permits > 1 ? 1 : 0));
        if (permits > 1) {
            runBytes = WordStream.putVarint(run, runBytes, permits);
        }
        int firstWord = from >>> 3;
        int start = from & 7;
        int copied = state == null ? 0 : (end + 7 >>> 3) - firstWord;
        int newEnd = end - (firstWord << 3) + runBytes;
        long[] updated = new long[DATA + (newEnd + 7 >>> 3)];
        if (copied > 0) {
            System.arraycopy(state, DATA + firstWord, updated, DATA, copied);
        }
        WordStream.putBytes(run, runBytes, updated, DATA, newEnd - runBytes);
        updated[HEADER] = header(ID, 0);
        updated[COUNT] = held + permits;
        updated[BASE] = base;
        updated[SPAN] = (long) start << 32 | newEnd;
        return updated;
    }

    /**
     * Removes up to {@code permits} entries stamped {@code at}: the grant's own, or another's of the same
     * millisecond, which counts identically.
     */
    static long[] refund(LimitSpec.SlidingLog spec, long[] state, long permits, long at) {
        long[] times = timestamps(state);
        int last = times.length - 1;
        while (last >= HEADER_WORDS && times[last] > at) {
            last--;
        }
        int first = last;
        while (first >= HEADER_WORDS && times[first] == at && last - first < permits) {
            first--;
        }
        int removed = last - first;
        if (removed == 0) {
            return state;
        }
        long[] updated = new long[times.length - removed];
        System.arraycopy(times, 0, updated, 0, first + 1);
        System.arraycopy(times, last + 1, updated, first + 1, times.length - last - 1);
        // The log still expires a window after its latest entry, as every step of this spec leaves it; an
        // empty log is no state at all.
        updated[EXPIRES_AT] = updated.length > HEADER_WORDS ? updated[updated.length - 1] + spec.windowMillis()
                : updated[LAST_NOW];
        return encode(updated);
    }

    /**
     * A log's times as layout 1 words: the header (layout 1), its latest time and expiry, then one time per
     * permit, oldest first. Layout 1 words are returned as they are.
     */
    static long[] timestamps(long[] state) {
        if (Algorithms.layoutOf(state) == LEGACY_LAYOUT) {
            return state;
        }
        long count = state[COUNT];
        if (count > Integer.MAX_VALUE - 16) {
            throw malformed(state);
        }
        long[] times = new long[HEADER_WORDS + (int) count];
        times[HEADER] = Algorithms.MAGIC << 48 | (long) ID << 40 | (long) LEGACY_LAYOUT << 32;
        times[LAST_NOW] = state[LAST_NOW];
        times[EXPIRES_AT] = state[EXPIRES_AT];
        Runs runs = new Runs(state);
        int at = HEADER_WORDS;
        int end = (int) state[SPAN];
        while (runs.pos < end) {
            runs.next();
            if (runs.permits > times.length - at) {
                throw malformed(state);
            }
            Arrays.fill(times, at, at + (int) runs.permits, runs.time);
            at += (int) runs.permits;
        }
        if (at != times.length) {
            throw malformed(state);
        }
        return times;
    }

    /** Layout 1 words (times in any order) as layout 2, the same times sorted, with the same latest time and expiry. */
    static long[] encode(long[] times) {
        long[] sorted = Arrays.copyOfRange(times, HEADER_WORDS, times.length);
        Arrays.sort(sorted);
        byte[] stream = new byte[MAX_RUN_BYTES * (sorted.length + 1)];
        int end = 0;
        long base = sorted.length == 0 ? times[LAST_NOW] : sorted[0];
        long previous = base;
        for (int i = 0; i < sorted.length; ) {
            int j = i;
            while (j < sorted.length && sorted[j] == sorted[i]) {
                j++;
            }
            long permits = j - i;
            end = WordStream.putVarint(stream, end, (sorted[i] - previous) << 1 | (permits > 1 ? 1 : 0));
            if (permits > 1) {
                end = WordStream.putVarint(stream, end, permits);
            }
            previous = sorted[i];
            i = j;
        }
        long[] state = new long[DATA + (end + 7 >>> 3)];
        WordStream.putBytes(stream, end, state, DATA, 0);
        state[HEADER] = header(ID, 0);
        state[LAST_NOW] = times[LAST_NOW];
        state[EXPIRES_AT] = times[EXPIRES_AT];
        state[COUNT] = sorted.length;
        state[BASE] = base;
        state[LAST] = previous;
        state[SPAN] = end;
        return state;
    }

    static IllegalStateException malformed(long[] state) {
        return new IllegalStateException("the entry under this key holds a malformed sliding-log state ("
                + state.length + " words); delete the entry to start over");
    }

    /** Reads a layout 2 stream's runs in order: after {@link #next}, the run's time, permits and the byte after it. */
    private static final class Runs extends WordStream.Reader {
        long time;
        long permits;

        Runs(long[] state) {
            this(state, (int) (state[SPAN] >>> 32), state[BASE]);
        }

        Runs(long[] state, int from, long base) {
            super(state, DATA, from, (int) state[SPAN]);
            this.time = base;
        }

        void next() {
            long tagged = varint();
            time += tagged >>> 1;
            permits = (tagged & 1) == 0 ? 1 : varint();
            if (permits <= 0) {
                throw malformed();
            }
        }

        @Override
        IllegalStateException malformed() {
            return SlidingLogStep.malformed(state);
        }
    }
}
