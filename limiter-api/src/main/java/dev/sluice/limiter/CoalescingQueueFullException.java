package dev.sluice.limiter;

/**
 * A decision was refused before it was sent: the queue of decisions waiting for one key (while a call on
 * it is in flight) is full, because the store answers more slowly than decisions arrive ({@link Coalescing}).
 * Nothing ran, so the runtime retries it within the decision's deadline; if it still cannot be sent, the
 * limiter's failure mode decides.
 */
public final class CoalescingQueueFullException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param maxQueued the bound that was reached ({@link Coalescing#maxQueuedPerKey()}) */
    public CoalescingQueueFullException(int maxQueued) {
        super("Sluice: " + maxQueued + " decisions already wait for this key (maxQueuedPerKey);"
                + " the decision was not sent");
    }
}
