package dev.sluice.jcache;

import java.lang.management.ManagementFactory;
import java.util.OptionalLong;
import java.util.Set;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.CompleteConfiguration;
import javax.cache.configuration.Configuration;
import javax.cache.configuration.MutableConfiguration;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A cache configuration bounded in entries, for the providers whose bound Sluice can set (Caffeine's
 * {@code maximumSize}, Ehcache 3's heap entries, Hazelcast's eviction {@code ENTRY_COUNT}), built by reflection so
 * that this module needs no provider; and the evictions a cache reports through JSR-107's statistics MXBean.
 */
final class BoundedCaches {
    private BoundedCaches() {}

    /**
     * {@code config} bounded at {@code maxEntries} in {@code manager}'s provider's own configuration type.
     *
     * @throws IllegalArgumentException when the provider is not one of the three, naming what to do instead
     */
    static Configuration<String, long[]> bounded(CacheManager manager, MutableConfiguration<String, long[]> config,
            long maxEntries, long lifetimeMillis) {
        String provider = manager.getCachingProvider().getClass().getName();
        ClassLoader loader = manager.getCachingProvider().getClass().getClassLoader();
        try {
            if (provider.startsWith("com.github.benmanes.caffeine.jcache.")) {
                Class<?> type = Class.forName("com.github.benmanes.caffeine.jcache.configuration.CaffeineConfiguration",
                        true, loader);
                Object caffeine = type.getConstructor(CompleteConfiguration.class).newInstance(config);
                type.getMethod("setMaximumSize", OptionalLong.class).invoke(caffeine, OptionalLong.of(maxEntries));
                return cast(caffeine);
            }
            if (provider.startsWith("com.hazelcast.")) {
                Class<?> eviction = Class.forName("com.hazelcast.config.EvictionConfig", true, loader);
                Class<?> sizePolicy = Class.forName("com.hazelcast.config.MaxSizePolicy", true, loader);
                Object evictionConfig = eviction.getConstructor().newInstance();
                eviction.getMethod("setSize", int.class).invoke(evictionConfig, (int) Math.min(Integer.MAX_VALUE, maxEntries));
                eviction.getMethod("setMaxSizePolicy", sizePolicy).invoke(evictionConfig,
                        sizePolicy.getField("ENTRY_COUNT").get(null));
                Class<?> cacheConfig = Class.forName("com.hazelcast.config.CacheConfig", true, loader);
                Object hazelcast = cacheConfig.getConstructor(CompleteConfiguration.class).newInstance(config);
                cacheConfig.getMethod("setEvictionConfig", eviction).invoke(hazelcast, evictionConfig);
                return cast(hazelcast);
            }
            if (provider.startsWith("org.ehcache.")) {
                return ehcache(loader, maxEntries, lifetimeMillis);
            }
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalArgumentException("cannot bound a cache of " + provider + " (" + e + "); " + HOW, e);
        }
        throw new IllegalArgumentException("Sluice cannot bound a cache of " + provider + "; " + HOW);
    }

    static final String HOW = "create the cache yourself, bounded in entries at no more than the limiters' capacity,"
            + " and pass it to JCacheRateLimiters.builder(cache).capacity(...), or say that it is bounded by other"
            + " means with builder(cache).boundedElsewhere()";

    /**
     * Ehcache 3 reads a bound only from its own configuration: heap entries, and an expiry that restarts on
     * creation and update (as {@link javax.cache.expiry.ModifiedExpiryPolicy}) and is kept on access.
     */
    private static Configuration<String, long[]> ehcache(ClassLoader loader, long maxEntries, long lifetimeMillis)
            throws ReflectiveOperationException {
        Class<?> pools = Class.forName("org.ehcache.config.builders.ResourcePoolsBuilder", true, loader);
        Object heap = pools.getMethod("heap", long.class).invoke(null, maxEntries);
        Class<?> builderType = Class.forName("org.ehcache.config.builders.CacheConfigurationBuilder", true, loader);
        Class<?> poolsBuilder = Class.forName("org.ehcache.config.Builder", true, loader);
        Object builder = builderType.getMethod("newCacheConfigurationBuilder", Class.class, Class.class, poolsBuilder)
                .invoke(null, String.class, long[].class, heap);
        Class<?> expiryBuilder = Class.forName("org.ehcache.config.builders.ExpiryPolicyBuilder", true, loader);
        java.time.Duration lifetime = java.time.Duration.ofMillis(lifetimeMillis);
        Object expiry = expiryBuilder.getMethod("expiry").invoke(null);
        expiry = expiryBuilder.getMethod("create", java.time.Duration.class).invoke(expiry, lifetime);
        expiry = expiryBuilder.getMethod("update", java.time.Duration.class).invoke(expiry, lifetime);
        Object policy = expiryBuilder.getMethod("build").invoke(expiry);
        Class<?> policyType = Class.forName("org.ehcache.expiry.ExpiryPolicy", true, loader);
        builder = builderType.getMethod("withExpiry", policyType).invoke(builder, policy);
        Object cacheConfig = builderType.getMethod("build").invoke(builder);
        Class<?> configType = Class.forName("org.ehcache.config.CacheConfiguration", true, loader);
        Object eh107 = Class.forName("org.ehcache.jsr107.Eh107Configuration", true, loader)
                .getMethod("fromEhcacheCacheConfiguration", configType).invoke(null, cacheConfig);
        return cast(eh107);
    }

    /**
     * How long an Ehcache 3 cache with an expiry of its own (as {@link #bounded} makes) keeps an entry after an
     * update, read from its runtime configuration; null when the cache is not Ehcache's or has no such expiry.
     */
    static java.time.Duration ehcacheLifetime(Cache<?, ?> cache) {
        try {
            ClassLoader loader = cache.getClass().getClassLoader();
            Class<?> eh107 = Class.forName("org.ehcache.jsr107.Eh107Configuration", false, loader);
            @SuppressWarnings({"unchecked", "rawtypes"})
            Object config = cache.getConfiguration((Class) eh107);
            Class<?> runtimeType = Class.forName("org.ehcache.config.CacheRuntimeConfiguration", false, loader);
            Object runtime = eh107.getMethod("unwrap", Class.class).invoke(config, runtimeType);
            Object policy = Class.forName("org.ehcache.config.CacheConfiguration", false, loader)
                    .getMethod("getExpiryPolicy").invoke(runtime);
            Class<?> policyType = Class.forName("org.ehcache.expiry.ExpiryPolicy", false, loader);
            Object update = policyType.getMethod("getExpiryForUpdate", Object.class, java.util.function.Supplier.class,
                    Object.class).invoke(policy, "", (java.util.function.Supplier<Object>) () -> new long[0], new long[0]);
            if (update instanceof java.time.Duration d && !d.isNegative()
                    && d.compareTo(java.time.Duration.ofDays(365L * 1000)) < 0) {
                return d;
            }
            return null;
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    @SuppressWarnings("unchecked")
    private static Configuration<String, long[]> cast(Object config) {
        return (Configuration<String, long[]>) config;
    }

    /** Turns on the cache's JSR-107 statistics, which count its evictions; false when the provider refuses. */
    static boolean enableStatistics(Cache<?, ?> cache) {
        try {
            cache.getCacheManager().enableStatistics(cache.getName(), true);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The evictions the cache's statistics MXBean reports, or -1 when it has none registered. */
    static long evictions(Cache<?, ?> cache) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            Set<ObjectName> names = server.queryNames(new ObjectName("javax.cache:type=CacheStatistics,*"), null);
            long total = -1;
            for (ObjectName name : names) {
                String cacheName = name.getKeyProperty("Cache");
                if (cache.getName().equals(cacheName) || ObjectName.quote(cache.getName()).equals(cacheName)) {
                    Object value = server.getAttribute(name, "CacheEvictions");
                    total = Math.max(0, total) + ((Number) value).longValue();
                }
            }
            return total;
        } catch (Exception | LinkageError e) {
            return -1;
        }
    }
}
