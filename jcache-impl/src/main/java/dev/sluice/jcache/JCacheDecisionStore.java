package dev.sluice.jcache;

import dev.sluice.limiter.store.DecisionStore;
import dev.sluice.limiter.store.StepOutcomes;
import dev.sluice.limiter.store.StepRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import javax.cache.Cache;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.expiry.ExpiryPolicy;
import javax.cache.CacheException;
import javax.cache.processor.EntryProcessorException;

/**
 * Runs each call as one {@code Cache.invoke} of a {@link CacheStepProcessor} carrying all its requests.
 *
 * <p>JCache has no asynchronous API, so {@code invoke} runs on the executor (the user's, or a small bounded pool
 * this store owns and shuts down in {@link #close}; never the common pool), and a slow remote provider cannot hold
 * a caller past its deadline. With {@code callerRuns} (in-process providers: the step takes microseconds) a
 * blocking caller's own call runs in its thread, one thread hop less.
 *
 * <p>A rejected submission is retryable: the step never ran. Any other failure is not, since a remote
 * provider may have applied a step whose answer was lost.
 */
final class JCacheDecisionStore implements DecisionStore {
    private final Cache<String, long[]> cache;
    private final String clockName;
    private final Executor executor;
    private final ExecutorService owned;
    private final boolean callerRuns;
    private final Runnable onClose;

    JCacheDecisionStore(Cache<String, long[]> cache, String clockName, Executor executor, ExecutorService owned,
            boolean callerRuns, Runnable onClose) {
        this.cache = cache;
        this.clockName = clockName;
        this.executor = executor;
        this.owned = owned;
        this.callerRuns = callerRuns;
        this.onClose = onClose;
    }

    /** The cache's expiry policy applies, so the value lasts as long as an idle entry does. */
    @Override
    public long[] putIfAbsent(String key, long[] words) {
        if (cache.putIfAbsent(key, words)) {
            return words;
        }
        long[] held = cache.get(key);
        return held != null ? held : words;
    }

    /**
     * The cache's bound in entries, and the evictions its provider counts (JSR-107 statistics, turned on when the
     * limiters were built); JCache cannot tell how many keys a cache holds.
     */
    @Override
    public dev.sluice.limiter.StoreStatistics statistics() {
        long maxKeys = CacheBound.of(cache).map(CacheBound::maxEntries)
                .filter(max -> max != CacheBound.UNBOUNDED).orElse(-1L);
        return new dev.sluice.limiter.StoreStatistics(-1, maxKeys, BoundedCaches.evictions(cache), -1, -1, -1, -1);
    }

    private StepOutcomes invoke(List<StepRequest> requests) {
        StepOutcomes outcomes;
        try {
            outcomes = cache.invoke(requests.get(0).key(), new CacheStepProcessor(requests, clockName));
        } catch (EntryProcessorException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        } catch (IllegalStateException | IllegalArgumentException e) {
            // Thrown by the provider itself (a step's own errors arrive in EntryProcessorException): a closed cache,
            // a failing provider. A store failure, so the failure mode applies, not the caller's usage error.
            throw new CacheException("the cache failed: " + e, e);
        }
        if (outcomes == null || outcomes.size() != requests.size()) {
            throw new IllegalStateException("the cache's invoke returned " + outcomes + " for " + requests.size()
                    + " requests instead of Sluice's outcomes; is the provider JSR-107 compliant?");
        }
        return outcomes;
    }

    /**
     * Refuses a spec whose state outlives the cache's expiry: the entry would vanish under a state that
     * still matters and the budget would start over (a {@code slidingLog(3, 10 s)} on a cache of 1 s granted
     * 18 in 6 s). What an entry lives after a write is the policy's expiry for update, or for creation when
     * it leaves updates alone. A cache whose configuration cannot be read, or whose provider expires
     * entries by its own settings, is accepted: docs/jcache.md says to size such caches.
     */
    @Override
    public void checkSpec(LimitSpec spec) {
        Duration needed = JCacheRateLimiters.maxStateLifetime(spec);
        Duration lifetime = entryLifetime(cache);
        if (lifetime != null && lifetime.compareTo(needed) < 0) {
            throw new IllegalArgumentException("cache '" + cache.getName() + "' expires entries " + lifetime.toMillis()
                    + " ms after a write, but the state of " + spec + " matters for up to " + needed.toMillis()
                    + " ms, so its budget would start over early; create the cache with an expiry of at least "
                    + needed.toMillis() + " ms (JCacheRateLimiters.createCache(manager, name,"
                    + " JCacheRateLimiters.maxStateLifetime(spec, ...)))");
        }
    }

    /** How long an entry lives after a write, or null when unbounded or unknown. */
    static Duration entryLifetime(Cache<?, ?> cache) {
        ExpiryPolicy policy;
        try {
            @SuppressWarnings("unchecked")
            CompleteConfiguration<Object, Object> config = cache.getConfiguration(CompleteConfiguration.class);
            policy = config.getExpiryPolicyFactory() == null ? null : config.getExpiryPolicyFactory().create();
        } catch (RuntimeException e) {
            return BoundedCaches.ehcacheLifetime(cache); // Ehcache's own configuration is not a JSR-107 one
        }
        if (policy == null) {
            return BoundedCaches.ehcacheLifetime(cache);
        }
        javax.cache.expiry.Duration d = policy.getExpiryForUpdate();
        if (d == null) {
            d = policy.getExpiryForCreation();
        }
        if (d == null || d.isEternal()) {
            return BoundedCaches.ehcacheLifetime(cache);
        }
        return Duration.ofMillis(d.getTimeUnit().toMillis(d.getDurationAmount()));
    }

    @Override
    public CompletableFuture<StepOutcomes> run(List<StepRequest> requests) {
        try {
            return CompletableFuture.supplyAsync(() -> invoke(requests), executor);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<StepOutcomes> runForBlockingCaller(List<StepRequest> requests) {
        if (!callerRuns) {
            return run(requests);
        }
        try {
            return CompletableFuture.completedFuture(invoke(requests));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public boolean isRetryable(Throwable failure) {
        return failure instanceof RejectedExecutionException && (owned == null || !owned.isShutdown());
    }

    @Override
    public void close() {
        if (owned != null) {
            owned.shutdown();
        }
        onClose.run();
    }

    @Override
    public String toString() {
        return "JCache store (cache '" + cache.getName() + "', " + (callerRuns ? "caller runs" : "on executor") + ")";
    }
}
