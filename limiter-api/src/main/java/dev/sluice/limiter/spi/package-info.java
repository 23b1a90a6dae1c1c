/**
 * For backend implementers: the store a backend implements ({@link dev.sluice.limiter.spi.DecisionStore}),
 * the request it is handed ({@link dev.sluice.limiter.spi.StepRequest}), and the entry point that turns a
 * store into limiters ({@link dev.sluice.limiter.spi.RateLimiterRuntime}). A backend runs each request with
 * {@link dev.sluice.limiter.algorithm.StepRunner}. Not needed by users.
 */
package dev.sluice.limiter.spi;
