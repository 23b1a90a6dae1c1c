package dev.sluice.jcache;

import dev.sluice.limiter.Capacity;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.OptionalLong;
import javax.cache.Cache;

/**
 * A cache's own bound on entries, read from its provider's configuration: JSR-107 has no size, so each provider
 * keeps it elsewhere (Caffeine: {@code CaffeineConfiguration.getMaximumSize()}; Ehcache 3: the heap pool of
 * {@code Eh107Configuration}'s runtime configuration, in entries; Hazelcast: {@code CacheConfig}'s eviction
 * {@code ENTRY_COUNT}, per member). Read by reflection, so that this module needs no provider at compile or run
 * time.
 *
 * @param maxEntries the most entries the cache holds, {@link #UNBOUNDED} when it has no bound
 * @param source where the bound was read, for messages
 */
record CacheBound(long maxEntries, String source) {
    static final long UNBOUNDED = Long.MAX_VALUE;
    /** Ehcache's JSR-107 default heap is {@code Long.MAX_VALUE} entries: as good as none. */
    private static final long AS_GOOD_AS_UNBOUNDED = Long.MAX_VALUE / 2;

    /** The cache's bound in entries, or empty when its provider is not one of the three or counts otherwise. */
    static Optional<CacheBound> of(Cache<?, ?> cache) {
        try {
            Object caffeine = configuration(cache, "com.github.benmanes.caffeine.jcache.configuration.CaffeineConfiguration");
            if (caffeine != null) {
                OptionalLong size = (OptionalLong) invoke(caffeine, "getMaximumSize");
                if (size.isPresent()) {
                    return Optional.of(new CacheBound(size.getAsLong(), "Caffeine maximumSize"));
                }
                OptionalLong weight = (OptionalLong) invoke(caffeine, "getMaximumWeight");
                return weight.isPresent() ? Optional.empty()
                        : Optional.of(new CacheBound(UNBOUNDED, "Caffeine maximumSize, not set"));
            }
            Object ehcache = configuration(cache, "org.ehcache.jsr107.Eh107Configuration");
            if (ehcache != null) {
                // Ehcache's implementations are not public: call through its public types.
                ClassLoader loader = ehcache.getClass().getClassLoader();
                Class<?> runtimeType = Class.forName("org.ehcache.config.CacheRuntimeConfiguration", false, loader);
                Object runtime = Class.forName("org.ehcache.jsr107.Eh107Configuration", false, loader)
                        .getMethod("unwrap", Class.class).invoke(ehcache, runtimeType);
                Object pools = Class.forName("org.ehcache.config.CacheConfiguration", false, loader)
                        .getMethod("getResourcePools").invoke(runtime);
                Class<?> resourceType = Class.forName("org.ehcache.config.ResourceType", false, loader);
                Object heapType = Class.forName("org.ehcache.config.ResourceType$Core", false, loader)
                        .getField("HEAP").get(null);
                Object heap = Class.forName("org.ehcache.config.ResourcePools", false, loader)
                        .getMethod("getPoolForResource", resourceType).invoke(pools, heapType);
                Class<?> sized = Class.forName("org.ehcache.config.SizedResourcePool", false, loader);
                if (heap == null || !String.valueOf(sized.getMethod("getUnit").invoke(heap)).equalsIgnoreCase("entries")) {
                    return Optional.empty();
                }
                long size = (Long) sized.getMethod("getSize").invoke(heap);
                return Optional.of(size >= AS_GOOD_AS_UNBOUNDED ? new CacheBound(UNBOUNDED, "Ehcache heap entries, "
                        + size) : new CacheBound(size, "Ehcache heap entries"));
            }
            Object hazelcast = configuration(cache, "com.hazelcast.config.CacheConfig");
            if (hazelcast != null) {
                Object eviction = invoke(hazelcast, "getEvictionConfig");
                if (!String.valueOf(invoke(eviction, "getMaxSizePolicy")).equals("ENTRY_COUNT")) {
                    return Optional.empty();
                }
                return Optional.of(new CacheBound((Integer) invoke(eviction, "getSize"),
                        "Hazelcast eviction ENTRY_COUNT per member"));
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /**
     * Checks that {@code cache} is bounded at no more than {@code capacity}'s keys.
     *
     * @throws IllegalArgumentException naming the cache's bound and where it was read, and the limiters' bound
     */
    static void check(Cache<?, ?> cache, Capacity capacity) {
        if (capacity.policy() == Capacity.Policy.REFUSE_NEW_KEYS) {
            throw new IllegalArgumentException("a JCache store cannot refuse new keys: the cache evicts at its own"
                    + " bound as its provider decides (" + capacity + "); size the cache so that it never holds more"
                    + " keys than are live at once");
        }
        long allowed = capacity.resolveMaxKeys();
        String name = "cache '" + cache.getName() + "'";
        CacheBound bound = of(cache).orElseThrow(() -> new IllegalArgumentException("cannot read the entry bound of "
                + name + " (" + cache.getClass().getName() + ") to check it against " + capacity + " (" + allowed
                + " keys): bound it in entries (Caffeine maximumSize, Ehcache heap entries, Hazelcast ENTRY_COUNT), or"
                + " say that it is bounded by other means with JCacheRateLimiters.builder(cache).boundedElsewhere()"));
        if (bound.maxEntries() == UNBOUNDED) {
            throw new IllegalArgumentException(name + " has no bound on entries (" + bound.source() + "), so a flood of"
                    + " new keys fills the heap; bound it at no more than " + allowed + " entries, the bound of "
                    + capacity + " (JCacheRateLimiters.createCache does), or say that it is bounded by other means"
                    + " with JCacheRateLimiters.builder(cache).boundedElsewhere()");
        }
        if (bound.maxEntries() > allowed) {
            throw new IllegalArgumentException(name + " holds up to " + bound.maxEntries() + " entries (" + bound.source()
                    + "), more than the " + allowed + " keys of " + capacity + "; lower the cache's bound or raise"
                    + " the limiters'");
        }
    }

    /** The provider's own configuration type of {@code cache}, or {@code null} when it is not that provider's. */
    private static Object configuration(Cache<?, ?> cache, String className) {
        Class<?> type;
        try {
            type = Class.forName(className, false, cache.getClass().getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        try {
            @SuppressWarnings({"unchecked", "rawtypes"})
            Object config = cache.getConfiguration((Class) type);
            return config;
        } catch (IllegalArgumentException | ClassCastException e) {
            return null; // another provider's cache
        }
    }

    /** A public method of a public provider class (Caffeine's and Hazelcast's configurations are). */
    private static Object invoke(Object target, String method) throws ReflectiveOperationException {
        Method m = target.getClass().getMethod(method);
        return m.invoke(target);
    }
}
