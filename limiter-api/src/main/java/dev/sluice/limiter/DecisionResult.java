package dev.sluice.limiter;

/** How a decision ended, as reported to a {@link DecisionListener}. Bounded, so it can be a metric tag. */
public enum DecisionResult {
    GRANTED,
    REFUSED,
    /** The store gave no decision and the failure mode decided (granted or refused). */
    DEGRADED;

    /** The lowercase tag value, e.g. {@code "granted"}. */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
