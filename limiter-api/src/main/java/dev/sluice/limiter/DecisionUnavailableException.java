package dev.sluice.limiter;

/**
 * Thrown (or used to complete a future exceptionally) under {@link FailureMode#THROW} when the store
 * gave no decision within the decision timeout, after retries. The cause, if any, is the last failure.
 */
public class DecisionUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String limiter;

    public DecisionUnavailableException(String limiter, String message, Throwable cause) {
        super("no decision for limiter '" + limiter + "': " + message, cause);
        this.limiter = limiter;
    }

    /** The name of the limiter that could not decide. */
    public String limiter() {
        return limiter;
    }
}
