package dev.sluice.limiter;

/**
 * A store holds as many keys as its {@link Capacity} allows and refuses a decision for a key that has no
 * state ({@link Capacity.Policy#REFUSE_NEW_KEYS}). The runtime never retries it: the decision follows the
 * limiter's {@link FailureMode} at once, and is counted in {@link LimiterStatistics#capacityRefused()}.
 */
public class CapacityExceededException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CapacityExceededException(String message) {
        // No stack trace: a flood refuses one decision after another, and where it was thrown says nothing.
        super(message, null, false, false);
    }
}
