/**
 * The runtime shared by every backend: the decision path (deadlines, retries, failure modes), the local
 * wait queue, concurrency leases and their renewal, statistics and listeners. Internal: reached through
 * {@link dev.sluice.limiter.spi.RateLimiterRuntime}.
 */
package dev.sluice.limiter.runtime;
