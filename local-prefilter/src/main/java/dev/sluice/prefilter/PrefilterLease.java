package dev.sluice.prefilter;

import dev.sluice.limiter.Lease;

/**
 * A lease from a pre-filtered limiter, saying where the decision was made.
 *
 * <p>For a local refusal, {@link #retryAfter()} counts down to the instant the store gave (it is exact for a
 * request of the refused size and a lower bound for a larger one), {@link #remaining()} and
 * {@link #limit()} are those of the store's refusal. For a local grant (allowance mode),
 * {@link #remaining()} is the store's remaining at the latest batch plus what this process still holds: an
 * estimate, since other processes may have taken permits since.
 */
public interface PrefilterLease extends Lease {

    /** True if this process decided without asking the store (a hop saved). */
    boolean isLocal();
}
