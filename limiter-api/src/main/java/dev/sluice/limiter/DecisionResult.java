package dev.sluice.limiter;

/** How a decision ended, as reported to a {@link DecisionListener}. Bounded, so it can be a metric tag. */
public enum DecisionResult {
    GRANTED,
    REFUSED,
    /**
     * The store gave no decision in time: the failure mode granted or refused (a degraded lease), or,
     * under {@link FailureMode#THROW}, the call failed with {@link DecisionUnavailableException}.
     */
    DEGRADED,
    /**
     * A refusal that its caller let through because the limit is in shadow mode (being rolled out: decided
     * and counted, never enforced). The runtime never reports it; a caller such as the servlet filter's
     * shadow mode reports it to the limit's listeners in place of {@link #REFUSED}.
     */
    SHADOW_REFUSED;

    /** The lowercase tag value, e.g. {@code "granted"}. */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
