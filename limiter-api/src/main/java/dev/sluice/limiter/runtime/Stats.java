package dev.sluice.limiter.runtime;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.LimiterStatistics;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Counts for one limiter (shared by all partitions of a partitioned one) and its listeners. */
final class Stats {
    private final String name;
    private final List<DecisionListener> listeners;
    private final LongAdder granted = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder degraded = new LongAdder();
    private final AtomicLong queued = new AtomicLong();
    private volatile long lastRemaining = -1;

    Stats(String name, List<DecisionListener> listeners) {
        this.name = name;
        this.listeners = listeners;
    }

    void record(DecisionResult result, long remaining, long startNanos) {
        switch (result) {
            case GRANTED -> granted.increment();
            case REFUSED -> refused.increment();
            default -> degraded.increment();
        }
        if (remaining >= 0) {
            lastRemaining = remaining;
        }
        if (!listeners.isEmpty()) {
            long nanos = System.nanoTime() - startNanos;
            for (DecisionListener l : listeners) {
                try {
                    l.onDecision(name, result, nanos);
                } catch (RuntimeException ignored) {
                    // A listener must not break decisions.
                }
            }
        }
    }

    void queueChanged(long deltaPermits) {
        long now = queued.addAndGet(deltaPermits);
        for (DecisionListener l : listeners) {
            try {
                l.onQueueChanged(name, now);
            } catch (RuntimeException ignored) {
                // A listener must not break decisions.
            }
        }
    }

    LimiterStatistics snapshot() {
        return new LimiterStatistics(granted.sum(), refused.sum(), degraded.sum(), queued.get(), lastRemaining);
    }
}
