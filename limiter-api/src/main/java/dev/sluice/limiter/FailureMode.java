package dev.sluice.limiter;

/** What a limiter does when no decision can be had from its store within the decision timeout. */
public enum FailureMode {
    /** Fail the call with a {@link DecisionUnavailableException} (the default). */
    THROW,
    /** Fail open: grant a lease marked {@linkplain Lease#isDegraded() degraded}; nothing is recorded in the store. */
    ALLOW,
    /** Fail closed: refuse with a lease marked {@linkplain Lease#isDegraded() degraded}. */
    DENY,
    /**
     * Decide locally, on this replica's share of the limit: the spec with every permits parameter divided by the
     * number of replicas, rounded down, in an in-process store of this JVM. The leases are marked
     * {@linkplain Lease#isDegraded() degraded} and {@linkplain Lease#isLocalFallback() local}. After a failure the
     * limiter decides locally without asking the store for a short interval, then asks it again; once it answers,
     * the local state is dropped. The number of replicas is {@link LimiterOptions#fallbackReplicas()} or the
     * cluster's membership when the store last answered, whichever is larger (see docs/fallback.md).
     */
    LOCAL
}
