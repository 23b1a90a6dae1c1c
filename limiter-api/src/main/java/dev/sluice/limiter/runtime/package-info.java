/**
 * The runtime shared by every backend: the decision path (deadlines, retries, failure modes), the local
 * wait queue, concurrency leases and their renewal, chains and the all-or-nothing sequence under them,
 * statistics and listeners. Internal and package-private but for {@link dev.sluice.limiter.runtime.RuntimeAccess},
 * the door through which {@link dev.sluice.limiter.spi.RateLimiterRuntime} and the API reach it.
 */
package dev.sluice.limiter.runtime;
