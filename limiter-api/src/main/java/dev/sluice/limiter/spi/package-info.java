/**
 * For backend implementers: the pure algorithm step ({@link dev.sluice.limiter.spi.Algorithms}), the
 * store a backend implements ({@link dev.sluice.limiter.spi.DecisionStore}) and the shared runtime that
 * turns a store into limiters ({@link dev.sluice.limiter.spi.RateLimiterRuntime}). Not needed by users.
 */
package dev.sluice.limiter.spi;
