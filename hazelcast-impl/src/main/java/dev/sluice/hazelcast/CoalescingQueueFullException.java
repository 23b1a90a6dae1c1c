package dev.sluice.hazelcast;

import com.hazelcast.spi.exception.RetryableHazelcastException;

/**
 * A decision was refused before it was sent: the queue of decisions waiting for one key (while an
 * invocation on it is in flight) is full, because its owner answers more slowly than decisions arrive.
 * Nothing ran, so the runtime may retry it within the decision's deadline; if it still cannot be sent,
 * the limiter's failure mode decides.
 */
public final class CoalescingQueueFullException extends RetryableHazelcastException {
    private static final long serialVersionUID = 1L;

    CoalescingQueueFullException(int maxQueued) {
        super("Sluice: " + maxQueued + " decisions already wait for this key (maxQueuedPerKey);"
                + " the decision was not sent");
    }
}
