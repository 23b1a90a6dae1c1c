/**
 * The runtime shared by every backend: the decision path (deadlines, retries, failure modes), the local
 * wait queue, concurrency leases and their renewal, chains and the all-or-nothing sequence under them,
 * statistics and listeners. Exported to no module: its few public classes are the entry points the API
 * ({@link dev.sluice.limiter.RateLimiters}, {@link dev.sluice.limiter.AllOrNothing}) and
 * {@link dev.sluice.limiter.store.RateLimiterRuntime} call.
 */
package dev.sluice.limiter.runtime;
