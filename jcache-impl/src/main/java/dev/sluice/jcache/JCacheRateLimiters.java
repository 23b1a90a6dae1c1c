package dev.sluice.jcache;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.cache.Cache;
import javax.cache.CacheException;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.configuration.OptionalFeature;
import javax.cache.expiry.ModifiedExpiryPolicy;

/**
 * Rate limiters on any JSR-107 (JCache) provider whose {@code Cache.invoke} is atomic per key.
 *
 * <pre>{@code
 * Cache<String, long[]> cache = JCacheRateLimiters.createCache(cacheManager, "sluice", Duration.ofHours(1));
 * RateLimiters limiters = JCacheRateLimiters.create(cache);
 * }</pre>
 *
 * <p><b>Values.</b> The cache maps keys to {@code long[]}: the shared algorithms' state, which providers
 * copy or serialize cheaply (Caffeine clones primitive arrays, Hazelcast has a built-in serializer), and
 * which any node can read without Sluice's classes. A {@code Serializable} holder class would cost Java
 * serialization on Hazelcast and a class on every member's classpath, for no gain.
 *
 * <p><b>Time.</b> Each decision reads the clock of the node that runs the processor,
 * {@link System#currentTimeMillis()} unless a {@link Builder#clock clock} is set for tests. The state
 * keeps the latest time each key has seen, so a node whose clock lags cannot run a key's time backwards.
 *
 * <p><b>Expiry and size.</b> A processor cannot set a per-entry time to live in JCache. State carries its
 * own expiry time and reads as absent past it, so stale entries are harmless; the cache's
 * {@link ModifiedExpiryPolicy} only collects them, and must be no shorter than the longest state lifetime
 * ({@link #maxStateLifetime}), or budgets reset early. Never use a touched or accessed expiry policy: the
 * processor's read counts as an access. On providers that evict by count (Hazelcast's JCache: LRU beyond
 * 10,000 entries by default), an evicted key's budget starts over: size the cache for every key that can
 * be live within one state lifetime.
 *
 * <p><b>Durability.</b> {@link dev.sluice.limiter.Durability} is ignored: the cache's own configuration
 * decides backups (Hazelcast's JCache: one synchronous backup by default, which receives the computed
 * entry; the step is not run again). A failed {@code invoke} is never retried, since a remote provider
 * may have applied it.
 *
 * <p><b>Threads.</b> {@code tryAcquire} runs {@code invoke} in the calling thread on in-process providers
 * (Caffeine), otherwise on the executor with the caller waiting at most its decision timeout;
 * {@code acquireAsync} always runs it on the executor (never the common pool).
 */
public final class JCacheRateLimiters {
    /** Threads of the default executor: enough to overlap remote invokes, few enough for a small machine. */
    static final int DEFAULT_THREADS = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    /** Queued steps the default executor holds before it refuses (a refusal is retried within the deadline). */
    static final int DEFAULT_QUEUE = 1024;

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private JCacheRateLimiters() {}

    /** Limiters on {@code cache} with the default settings ({@link #builder}); runs the self-test. */
    public static RateLimiters create(Cache<String, long[]> cache) {
        return builder(cache).build();
    }

    /** Limiters on {@code cache} storing keys under {@code keyPrefix}; runs the self-test. */
    public static RateLimiters create(Cache<String, long[]> cache, String keyPrefix) {
        return builder(cache).keyPrefix(keyPrefix).build();
    }

    /** A builder of limiters on {@code cache}. */
    public static Builder builder(Cache<String, long[]> cache) {
        return new Builder(Objects.requireNonNull(cache, "cache"));
    }

    /**
     * A cache configuration for Sluice state: {@code String} keys, {@code long[]} values, store-by-value,
     * and a {@link ModifiedExpiryPolicy} of {@code maxStateLifetime}. Copy it into a provider's own
     * configuration to set what JCache cannot express, such as the size (e.g. Hazelcast's
     * {@code new CacheConfig<>(configuration(d)).setEvictionConfig(...)}).
     *
     * @throws IllegalArgumentException if {@code maxStateLifetime} is not positive
     */
    public static MutableConfiguration<String, long[]> configuration(Duration maxStateLifetime) {
        Objects.requireNonNull(maxStateLifetime, "maxStateLifetime");
        if (maxStateLifetime.isNegative() || maxStateLifetime.isZero()) {
            throw new IllegalArgumentException("maxStateLifetime must be positive, was " + maxStateLifetime);
        }
        long millis = saturatedMillis(maxStateLifetime);
        return new MutableConfiguration<String, long[]>()
                .setTypes(String.class, long[].class)
                .setStoreByValue(true)
                .setExpiryPolicyFactory(ModifiedExpiryPolicy.factoryOf(
                        new javax.cache.expiry.Duration(TimeUnit.MILLISECONDS, millis)));
    }

    /**
     * The cache {@code name} of {@code manager}, created with {@link #configuration} and bounded at
     * {@link Capacity#defaults()} if it does not exist (an existing cache is returned as it is).
     *
     * @see #createCache(CacheManager, String, Duration, Capacity)
     */
    public static Cache<String, long[]> createCache(CacheManager manager, String name, Duration maxStateLifetime) {
        return createCache(manager, name, maxStateLifetime, Capacity.defaults());
    }

    /**
     * The cache {@code name} of {@code manager}, created with {@link #configuration} and bounded in entries at
     * {@code capacity}'s keys if it does not exist (an existing cache is returned as it is; {@link Builder#build}
     * checks its bound). The bound is set in the provider's own configuration (Caffeine {@code maximumSize},
     * Ehcache 3 heap entries, Hazelcast eviction {@code ENTRY_COUNT} per member), and the cache's statistics are
     * turned on so that its evictions are counted. The provider evicts at that bound by its own policy, and an
     * evicted key's budget starts over: size it for every key that can be live within one state lifetime.
     *
     * <p>Replicas share budgets only if they reach the same cache: the same name, and on Hazelcast a manager with
     * the same URI and class loader, since Hazelcast scopes cache names by both. Store-by-reference is used where
     * the provider supports it (in-process providers: no copy per decision, safe because steps never modify a
     * state in place), store-by-value elsewhere.
     *
     * @param maxStateLifetime at least the longest lifetime of any limiter's state ({@link #maxStateLifetime})
     * @throws IllegalArgumentException if {@code maxStateLifetime} is not positive, or the provider is not one whose
     *     bound Sluice can set (the message says what to do instead)
     */
    public static Cache<String, long[]> createCache(CacheManager manager, String name, Duration maxStateLifetime,
            Capacity capacity) {
        Objects.requireNonNull(manager, "manager");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(capacity, "capacity");
        MutableConfiguration<String, long[]> config = configuration(maxStateLifetime);
        config.setStoreByValue(!manager.getCachingProvider().isSupported(OptionalFeature.STORE_BY_REFERENCE));
        config.setStatisticsEnabled(true);
        Cache<String, long[]> existing = manager.getCache(name, String.class, long[].class);
        if (existing != null) {
            return existing;
        }
        var bounded = BoundedCaches.bounded(manager, config, capacity.resolveMaxKeys(), saturatedMillis(maxStateLifetime));
        try {
            Cache<String, long[]> created = manager.createCache(name, bounded);
            BoundedCaches.enableStatistics(created);
            return created;
        } catch (CacheException e) {
            existing = manager.getCache(name, String.class, long[].class); // created concurrently
            if (existing == null) {
                throw e;
            }
            return existing;
        }
    }

    /**
     * The longest time the state of any of the given specs can matter after a write: the smallest expiry a cache
     * holding them may have. A window for windows (two for the sliding counter), the time to refill for
     * token buckets and GCRA, the lease duration for concurrency limiters.
     */
    public static Duration maxStateLifetime(LimitSpec spec, LimitSpec... more) {
        Objects.requireNonNull(more, "more");
        long max = 0;
        for (int i = -1; i < more.length; i++) {
            LimitSpec s = i < 0 ? spec : more[i];
            Objects.requireNonNull(s, "spec");
            max = Math.max(max, lifetimeMillis(s));
        }
        return Duration.ofMillis(max);
    }

    /** From no state at an epoch-aligned instant, taking the whole limit gives the longest lifetime. */
    private static long lifetimeMillis(LimitSpec spec) {
        if (spec instanceof LimitSpec.AllOf all) { // each component as if it had taken its own whole limit
            return all.components().stream().mapToLong(JCacheRateLimiters::lifetimeMillis).max().orElse(0);
        }
        return Algorithms.longestLifetimeMillis(spec);
    }

    private static long saturatedMillis(Duration d) {
        try {
            return d.toMillis();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    static boolean isInProcess(Cache<?, ?> cache) {
        try {
            String provider = cache.getCacheManager().getCachingProvider().getClass().getName();
            return provider.startsWith("com.github.benmanes.caffeine.jcache.");
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Settings of JCache limiters; each has a default. Not thread-safe; {@link #build} may be called more
     * than once.
     */
    public static final class Builder {
        private final Cache<String, long[]> cache;
        private String keyPrefix = RateLimiterRuntime.DEFAULT_KEY_PREFIX;
        private InstantSource clock;
        private String clockName;
        private Executor executor;
        private Boolean callerRuns;
        private boolean selfTest = true;
        private Capacity capacity = Capacity.defaults();
        private boolean boundedElsewhere;
        private RuntimeSettings runtime = RuntimeSettings.defaults();
        private Coalescing coalescing = Coalescing.on();

        private Builder(Cache<String, long[]> cache) {
            this.cache = cache;
        }

        /**
         * The prefix of every key; default {@value RateLimiterRuntime#DEFAULT_KEY_PREFIX}.
         *
         * @throws IllegalArgumentException if it is empty or holds control characters
         */
        public Builder keyPrefix(String keyPrefix) {
            this.keyPrefix = Keys.checkName("keyPrefix", keyPrefix);
            return this;
        }

        /**
         * For tests: processors read {@code clock} instead of the system clock. It is registered in
         * {@link ProcessorClocks} under a generated name while the limiters are open, so it reaches
         * processors that run in this JVM only (in-process providers, embedded members). Default: the
         * system clock of the node running each processor.
         */
        public Builder clock(InstantSource clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            this.clockName = null;
            return this;
        }

        /**
         * For tests across JVMs: processors read the clock registered as {@code name} with
         * {@link ProcessorClocks#register} on the node that runs them. Default: the system clock.
         */
        public Builder clock(String name) {
            this.clockName = Objects.requireNonNull(name, "name");
            this.clock = null;
            return this;
        }

        /**
         * Where steps run when they do not run in the caller: every {@code acquireAsync}, renewal and
         * release, and {@code tryAcquire} on providers that are not in-process. Use a bounded executor;
         * the caller keeps ownership (closing the limiters does not shut it down). Default: a pool owned by
         * the limiters of max(4, 2 &times; cores) daemon threads and a queue of 1,024 steps, shut down on
         * close; a step it refuses is retried within the decision timeout.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Whether {@code tryAcquire} runs {@code invoke} in the calling thread. In-process providers gain a
         * thread hop, but a slow provider then holds the caller past its decision timeout, so leave it off
         * for remote ones. Default: on for Caffeine's provider, off for any other.
         */
        public Builder callerRuns(boolean callerRuns) {
            this.callerRuns = callerRuns;
            return this;
        }

        /**
         * How concurrent decisions on one key share an {@code invoke} ({@link Coalescing}): while one runs, the
         * next ones queue and go together, decided in arrival order. Default: {@link Coalescing#on()}.
         */
        public Builder coalescing(Coalescing coalescing) {
            this.coalescing = Objects.requireNonNull(coalescing, "coalescing");
            return this;
        }

        /**
         * The ticker for deadlines and the scheduler the runtime runs on (see {@link RuntimeSettings}).
         */
        public Builder runtime(RuntimeSettings settings) {
            this.runtime = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * The most keys the limiters may keep: {@link #build} checks that the cache's own bound on entries (Caffeine
         * {@code maximumSize}, Ehcache 3 heap entries, Hazelcast eviction {@code ENTRY_COUNT}) is set and no larger,
         * since the cache, not Sluice, evicts at that bound (as its provider decides: Caffeine by frequency and
         * recency, Ehcache and Hazelcast by sampled recency), and an evicted key's budget starts over. The policy
         * is the provider's: {@link Capacity.Policy#REFUSE_NEW_KEYS} is refused. Default:
         * {@link Capacity#defaults()}, so an unbounded cache is refused unless {@link #boundedElsewhere()} is set.
         */
        public Builder capacity(Capacity capacity) {
            this.capacity = Objects.requireNonNull(capacity, "capacity");
            this.boundedElsewhere = false;
            return this;
        }

        /**
         * Says that the cache's memory is bounded by means Sluice cannot read (a provider Sluice does not know, a
         * weigher, an external process), so that {@link #build} does not check its bound. Sluice then cannot say
         * what a flood of new keys costs.
         */
        public Builder boundedElsewhere() {
            this.boundedElsewhere = true;
            return this;
        }

        /**
         * Whether {@link #build} first checks that the provider's {@code invoke} is atomic per key (a few
         * thousand invokes on a scratch key, removed afterwards). Default: on.
         */
        public Builder selfTest(boolean selfTest) {
            this.selfTest = selfTest;
            return this;
        }

        /**
         * The limiters. Closing them shuts down the default executor and unregisters a test clock; it
         * never closes the cache.
         *
         * @throws IllegalStateException if the self-test finds that {@code invoke} is not atomic per key
         * @throws IllegalArgumentException unless {@link #boundedElsewhere()} is set, if the cache's bound is
         *     unknown, missing or larger than the {@link #capacity}, naming both
         */
        public RateLimiters build() {
            if (!boundedElsewhere) {
                CacheBound.check(cache, capacity);
            }
            if (selfTest) {
                AtomicitySelfTest.run(cache, keyPrefix);
            }
            BoundedCaches.enableStatistics(cache); // so that the provider's evictions are counted
            int id = INSTANCES.incrementAndGet();
            String name = clockName;
            Runnable onClose = () -> {};
            if (clock != null) {
                String generated = "sluice-jcache-clock-" + id;
                ProcessorClocks.register(generated, clock);
                name = generated;
                onClose = () -> ProcessorClocks.unregister(generated);
            }
            ThreadPoolExecutor owned = null;
            Executor runOn = executor;
            if (runOn == null) {
                owned = defaultExecutor(id);
                runOn = owned;
            }
            boolean inCaller = callerRuns != null ? callerRuns : isInProcess(cache);
            try {
                return RateLimiterRuntime.create(new JCacheDecisionStore(cache, name, runOn, owned, inCaller, onClose),
                        keyPrefix, runtime, coalescing);
            } catch (RuntimeException e) {
                if (owned != null) {
                    owned.shutdown();
                }
                onClose.run();
                throw e;
            }
        }

        private static ThreadPoolExecutor defaultExecutor(int id) {
            AtomicInteger threads = new AtomicInteger();
            ThreadPoolExecutor pool = new ThreadPoolExecutor(DEFAULT_THREADS, DEFAULT_THREADS, 30, TimeUnit.SECONDS,
                    new ArrayBlockingQueue<>(DEFAULT_QUEUE), r -> {
                        Thread t = new Thread(r, "sluice-jcache-" + id + "-" + threads.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
            pool.allowCoreThreadTimeOut(true);
            return pool;
        }
    }
}
