/**
 * Between the runtime and a backend, for Sluice's own backend modules (exported to them only; not an API for
 * outside backends): the store a backend implements ({@link dev.sluice.limiter.store.DecisionStore}, one call runs
 * a key's requests in order), the request and outcomes it is handed and answers, the {@link
 * dev.sluice.limiter.store.Coalescer} every decision reaches a store through, and the entry point that turns a store
 * into limiters ({@link dev.sluice.limiter.store.RateLimiterRuntime}).
 */
package dev.sluice.limiter.store;
