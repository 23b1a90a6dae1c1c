package dev.sluice.prefilter;

/** What a pre-filter answers locally. */
public enum PrefilterMode {
    /**
     * Exact: after the store refuses a request with a retry-after, requests of at least that size are
     * refused locally until then. Never changes a decision the store would make; only saves the hop.
     */
    REFUSAL_CACHE,
    /**
     * Approximate, opt-in: permits are taken from the store in adaptive batches and granted locally, plus
     * the refusal cache. Never admits more than the limit; permits held by one process may be refused to
     * another, at most {@code processes × batch cap}. Not for concurrency limiters.
     */
    ALLOWANCE
}
