/**
 * For backend implementers: the store a backend implements ({@link dev.sluice.limiter.store.DecisionStore}),
 * the request it is handed ({@link dev.sluice.limiter.store.StepRequest}), and the entry point that turns a
 * store into limiters ({@link dev.sluice.limiter.store.RateLimiterRuntime}). A backend runs each request with
 * {@link dev.sluice.limiter.algorithm.StepRunner}. Not needed by users.
 */
package dev.sluice.limiter.store;
