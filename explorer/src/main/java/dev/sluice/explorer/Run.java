package dev.sluice.explorer;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Verdict;
import java.util.Arrays;

/**
 * One algorithm's decisions on one trace, and what they measure. Each key has its own state, as a partitioned
 * limiter keeps it; time is the trace's, so nothing sleeps and a run is a pure function of the trace.
 *
 * <p>Measured against the exact rule, "at most {@code limit} admissions in any interval {@code (t - window, t]}",
 * which the sliding log enforces. A decision is judged in the situation the algorithm itself created: the same
 * key, the same instant and the admissions this algorithm made so far. It is <em>wrongly allowed</em> when the
 * algorithm admitted it although those admissions already fill the window ending now, so that interval ends up
 * over the limit; <em>wrongly refused</em> when it was refused although there was room. Judging against a log
 * that made its own decisions instead would count every later decision on diverged histories as a difference,
 * so one early disagreement would be counted many times over.
 *
 * @param algorithm which algorithm decided
 * @param spec its spec
 * @param trace the arrivals it decided on
 * @param limit the limit per window
 * @param windowMillis the window of the exact rule
 * @param granted each arrival's decision
 * @param admittedTimes for each key, the times of its admissions, ascending
 * @param maxInWindow the most one key admitted in any interval one window long
 * @param wronglyAllowed admissions the exact rule would have refused
 * @param wronglyRefused refusals the exact rule would have admitted
 */
record Run(Algorithm algorithm, LimitSpec spec, Trace trace, long limit, long windowMillis, boolean[] granted,
        long[][] admittedTimes, long maxInWindow, long wronglyAllowed, long wronglyRefused) {

    /** Runs {@code spec}'s pure step on every arrival of {@code trace}, one permit each. */
    static Run of(Algorithm algorithm, LimitSpec spec, Trace trace, long windowMillis) {
        long limit = spec.limit();
        int n = trace.size();
        long[][] state = new long[trace.keyCount()][];
        AdmissionLog[] logs = new AdmissionLog[trace.keyCount()];
        for (int k = 0; k < logs.length; k++) {
            logs[k] = new AdmissionLog();
        }
        boolean[] granted = new boolean[n];
        long maxInWindow = 0;
        long wronglyAllowed = 0;
        long wronglyRefused = 0;
        for (int i = 0; i < n; i++) {
            int key = trace.keys()[i];
            long now = trace.times()[i];
            Verdict v = Algorithms.acquire(spec, state[key], now, 1);
            state[key] = v.state(); // the very state when unchanged, null when the entry is to be removed
            AdmissionLog log = logs[key];
            int inWindow = log.countSince(now - windowMillis);
            boolean exactGrants = inWindow + 1 <= limit;
            granted[i] = v.granted();
            if (v.granted()) {
                log.add(now);
                maxInWindow = Math.max(maxInWindow, inWindow + 1);
                if (!exactGrants) {
                    wronglyAllowed++;
                }
            } else if (exactGrants) {
                wronglyRefused++;
            }
        }
        long[][] admitted = new long[logs.length][];
        for (int k = 0; k < logs.length; k++) {
            admitted[k] = logs[k].toArray();
        }
        return new Run(algorithm, spec, trace, limit, windowMillis, granted, admitted, maxInWindow, wronglyAllowed,
                wronglyRefused);
    }

    long admitted() {
        long count = 0;
        for (long[] times : admittedTimes) {
            count += times.length;
        }
        return count;
    }

    long refused() {
        return trace.size() - admitted();
    }

    /** {@link #maxInWindow()} as a multiple of the limit. */
    double maxInWindowRatio() {
        return (double) maxInWindow / limit;
    }

    /**
     * How many of {@code key}'s admissions fall in {@code (t - window, t]}: the curve of the plots' lower panel.
     */
    int admittedInWindowEndingAt(int key, long t) {
        long[] times = admittedTimes[key];
        return upperBound(times, t) - upperBound(times, t - windowMillis);
    }

    /** The number of entries {@code <= t}. */
    private static int upperBound(long[] sorted, long t) {
        int low = 0;
        int high = sorted.length;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (sorted[mid] <= t) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    /** One key's admission times, with a cursor at the oldest one still in the window. */
    private static final class AdmissionLog {
        private long[] times = new long[64];
        private int size;
        private int oldest;

        /** How many admissions come after {@code t}; later calls must not pass a smaller {@code t}. */
        int countSince(long t) {
            while (oldest < size && times[oldest] <= t) {
                oldest++;
            }
            return size - oldest;
        }

        void add(long t) {
            if (size == times.length) {
                times = Arrays.copyOf(times, size * 2);
            }
            times[size++] = t;
        }

        long[] toArray() {
            return Arrays.copyOf(times, size);
        }
    }
}
