/**
 * Sluice's public API: limit specs, limiters, leases and options. Start from a backend's entry point
 * ({@code LocalRateLimiters}, {@code HazelcastRateLimiters}, {@code JCacheRateLimiters}), which returns
 * {@link dev.sluice.limiter.RateLimiters}.
 */
package dev.sluice.limiter;
