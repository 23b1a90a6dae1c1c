package dev.sluice.limiter.runtime;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.Ticker;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts for one limiter (shared by all partitions of a partitioned one) and its listeners. A decision's
 * duration is read on the runtime's ticker, the one its start was read on: two clocks never meet in one
 * difference.
 */
final class Stats {
    private final String name;
    private final Ticker ticker;
    private final boolean listened;
    private final DecisionListener listeners;
    private final LimiterStatistics.Recorder recorder = new LimiterStatistics.Recorder();
    private final AtomicLong queued = new AtomicLong();

    Stats(String name, List<DecisionListener> listeners, Ticker ticker) {
        this.name = name;
        this.ticker = ticker;
        this.listened = !listeners.isEmpty();
        this.listeners = DecisionListener.all(listeners);
    }

    void record(DecisionResult result, long remaining, long startNanos) {
        recorder.record(result, remaining);
        if (listened) {
            listeners.onDecision(name, result, ticker.read() - startNanos);
        }
    }

    /** A decision the store refused at its bound; the degraded decision that follows is recorded apart. */
    void capacityRefused() {
        recorder.recordCapacityRefusal();
        if (listened) {
            listeners.onCapacityRefused(name);
        }
    }

    /** A decision {@link dev.sluice.limiter.FailureMode#LOCAL} made while the store was away. */
    void fallbackDecided(boolean granted) {
        if (listened) {
            listeners.onFallbackDecision(name, granted);
        }
    }

    void queueChanged(long deltaPermits) {
        listeners.onQueueChanged(name, queued.addAndGet(deltaPermits));
    }

    LimiterStatistics snapshot() {
        return recorder.snapshot(queued.get());
    }
}
