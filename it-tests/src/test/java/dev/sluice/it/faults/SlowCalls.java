package dev.sluice.it.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/** Records decisions slower than a threshold, with when they started, to tell a fault's effect from noise. */
final class SlowCalls {
    private final long originNanos = System.nanoTime();
    private final long thresholdNanos;
    private final ConcurrentLinkedQueue<String> calls = new ConcurrentLinkedQueue<>();
    private final List<String> events = new ArrayList<>();

    SlowCalls(long thresholdMillis) {
        this.thresholdNanos = TimeUnit.MILLISECONDS.toNanos(thresholdMillis);
    }

    /** Records the call if it was slow; {@code what} describes it (key, outcome). */
    void record(long startNanos, long endNanos, Object what) {
        if (endNanos - startNanos > thresholdNanos) {
            calls.add(String.format("+%d ms: %d ms %s", millis(startNanos), millis(endNanos) - millis(startNanos), what));
        }
    }

    /** Marks a fault (a kill, a restart) on the same time line. */
    synchronized void event(String what) {
        events.add(String.format("+%d ms: %s", millis(System.nanoTime()), what));
    }

    private long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos - originNanos);
    }

    @Override
    public synchronized String toString() {
        return "events " + events + "; slow calls (" + calls.size() + ") " + calls;
    }
}
