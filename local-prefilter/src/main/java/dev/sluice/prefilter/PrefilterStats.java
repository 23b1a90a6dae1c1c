package dev.sluice.prefilter;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimiterStatistics;
import java.util.List;
import java.util.function.Consumer;

/**
 * What one pre-filter counts and tells: every lease handed to a caller, in the runtime's own counters
 * ({@link LimiterStatistics.Recorder}); each local decision to the wrapped limiter's
 * {@link DecisionListener}s (it reports the store's decisions itself); and local decisions, store calls and
 * discarded allowance permits to the {@link PrefilterListener}s.
 */
final class PrefilterStats {
    private final String name;
    private final LimiterStatistics.Recorder recorder = new LimiterStatistics.Recorder();
    private final boolean decisionsListened;
    private final DecisionListener decisionListeners;
    private final List<PrefilterListener> listeners;

    PrefilterStats(String name, List<DecisionListener> decisionListeners, List<PrefilterListener> listeners) {
        this.name = name;
        this.decisionsListened = !decisionListeners.isEmpty();
        this.decisionListeners = DecisionListener.all(decisionListeners);
        this.listeners = List.copyOf(listeners);
    }

    /** Counts a lease handed to a caller. */
    PrefilterLease record(PrefilterLease lease) {
        DecisionResult result = lease.isDegraded() ? DecisionResult.DEGRADED
                : lease.isAcquired() ? DecisionResult.GRANTED : DecisionResult.REFUSED;
        recorder.record(result, lease.isDegraded() ? -1 : lease.remaining());
        return lease;
    }

    /** Counts a decision made in this process, asked for at {@code startNanos}, and tells both kinds of listener. */
    PrefilterLease local(PrefilterLease lease, long permits, long startNanos) {
        tell(l -> l.onLocalDecision(name, lease.isAcquired(), permits));
        record(lease);
        if (decisionsListened) {
            DecisionResult result = lease.isAcquired() ? DecisionResult.GRANTED : DecisionResult.REFUSED;
            decisionListeners.onDecision(name, result, System.nanoTime() - startNanos);
        }
        return lease;
    }

    void storeCall(long permits, Lease answer) {
        tell(l -> l.onStoreCall(name, permits, answer.isAcquired()));
    }

    void discarded(long permits) {
        if (permits > 0) {
            tell(l -> l.onAllowanceDiscarded(name, permits));
        }
    }

    LimiterStatistics snapshot(long queuedPermits) {
        return recorder.snapshot(queuedPermits);
    }

    private void tell(Consumer<PrefilterListener> call) {
        for (PrefilterListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException ignored) {
                // A listener must not break decisions.
            }
        }
    }
}
