package dev.sluice.prefilter;

/**
 * Receives what a pre-filter does, e.g. to count hops saved. Called on the deciding thread:
 * implementations must be fast, thread-safe and must not throw (an exception is caught and ignored).
 * Every method does nothing by default.
 *
 * <p>Hops saved = local grants + local refusals. Decisions made locally are also reported to the
 * wrapped limiter's {@link dev.sluice.limiter.DecisionListener}s as ordinary decisions, so
 * {@code sluice.decisions} counts what callers saw.
 */
public interface PrefilterListener {

    /**
     * A decision made without asking the store.
     *
     * @param limiter the wrapped limiter's name (the policy, for a partitioned limiter)
     * @param granted true for a local grant (allowance), false for a cached refusal
     * @param permits the permits asked for
     */
    default void onLocalDecision(String limiter, boolean granted, long permits) {}

    /**
     * A call to the store made by the pre-filter: one per hop, including batch refills and their
     * fallbacks.
     *
     * @param limiter the wrapped limiter's name
     * @param permits the permits asked of the store (a batch, in allowance mode)
     * @param granted the store's answer
     */
    default void onStoreCall(String limiter, long permits, boolean granted) {}

    /**
     * Permits of a local allowance that were taken from the store and never granted: they expired, or
     * their entry was evicted. These are the permits the allowance strands.
     */
    default void onAllowanceDiscarded(String limiter, long permits) {}
}
