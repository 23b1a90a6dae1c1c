package dev.sluice.limiter;

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
}
