package dev.sluice.limiter;

/** The order in which queued acquisitions are served. */
public enum QueueOrder {
    /** Serve in arrival order; a new request queues behind existing waiters. */
    OLDEST_FIRST,
    /** Serve the newest first; when the queue is full, the oldest waiters are refused to make room. */
    NEWEST_FIRST
}
