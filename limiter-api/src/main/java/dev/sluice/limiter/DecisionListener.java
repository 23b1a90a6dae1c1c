package dev.sluice.limiter;

import java.util.List;
import java.util.function.Consumer;

/**
 * Receives every decision a limiter makes in this process, e.g. to record metrics. Called on the
 * thread that completed the decision: implementations must be fast, thread-safe and must not throw
 * (an exception is caught and ignored).
 */
public interface DecisionListener {

    /**
     * Called once per decision.
     *
     * @param limiter the limiter's name (for a partitioned limiter, its policy; never the partition)
     * @param result how it ended
     * @param durationNanos time spent obtaining the decision, retries included
     */
    void onDecision(String limiter, DecisionResult result, long durationNanos);

    /** Called when the permits waiting in a limiter's local queue change. */
    default void onQueueChanged(String limiter, long queuedPermits) {}

    /**
     * Called when the store refused a decision because it holds as many keys as its {@link Capacity} allows,
     * before {@link #onDecision} reports the degraded decision that follows.
     */
    default void onCapacityRefused(String limiter) {}

    /**
     * Called when {@link FailureMode#LOCAL} decided because the store was away, before {@link #onDecision} reports
     * the decision (as {@link DecisionResult#DEGRADED}).
     *
     * @param granted whether this replica's share granted the permits
     */
    default void onFallbackDecision(String limiter, boolean granted) {}

    /**
     * A listener that passes each call on to every one of {@code listeners}, in order. What one of them
     * throws is caught and ignored, so that a listener can neither break a decision nor keep the others
     * from hearing of it. The list is copied.
     *
     * @throws NullPointerException if {@code listeners} or one of its elements is null
     */
    static DecisionListener all(List<? extends DecisionListener> listeners) {
        List<DecisionListener> each = List.copyOf(listeners);
        if (each.isEmpty()) {
            return (limiter, result, durationNanos) -> {};
        }
        return new DecisionListener() {
            @Override
            public void onDecision(String limiter, DecisionResult result, long durationNanos) {
                callEach(each, l -> l.onDecision(limiter, result, durationNanos));
            }

            @Override
            public void onQueueChanged(String limiter, long queuedPermits) {
                callEach(each, l -> l.onQueueChanged(limiter, queuedPermits));
            }

            @Override
            public void onCapacityRefused(String limiter) {
                callEach(each, l -> l.onCapacityRefused(limiter));
            }

            @Override
            public void onFallbackDecision(String limiter, boolean granted) {
                callEach(each, l -> l.onFallbackDecision(limiter, granted));
            }
        };
    }

    private static void callEach(List<DecisionListener> listeners, Consumer<DecisionListener> call) {
        for (DecisionListener l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException ignored) {
                // A listener must not break decisions.
            }
        }
    }
}
