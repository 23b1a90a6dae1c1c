package dev.sluice.explorer;

/**
 * A generated trace: arrivals of one permit each, in time order; arrival {@code i} comes at {@code times[i]}
 * (epoch millis, simulated) for key {@code keys[i]}. The arrays are owned by the trace and never changed.
 *
 * @param kind which traffic this is
 * @param seed the seed it was generated from
 * @param start the first instant of the trace
 * @param end the instant the trace ends (exclusive)
 * @param times arrival times, ascending
 * @param keys each arrival's key, {@code 0} to {@code keyCount - 1}
 * @param keyCount how many keys (clients) the trace has
 */
record Trace(TraceKind kind, long seed, long start, long end, long[] times, int[] keys, int keyCount) {

    int size() {
        return times.length;
    }
}
