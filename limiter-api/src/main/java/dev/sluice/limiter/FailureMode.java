package dev.sluice.limiter;

/** What a limiter does when no decision can be had from its store within the decision timeout. */
public enum FailureMode {
    /** Fail the call with a {@link DecisionUnavailableException} (the default). */
    THROW,
    /** Fail open: grant a lease marked {@linkplain Lease#isDegraded() degraded}; nothing is recorded in the store. */
    ALLOW,
    /** Fail closed: refuse with a lease marked {@linkplain Lease#isDegraded() degraded}. */
    DENY
}
