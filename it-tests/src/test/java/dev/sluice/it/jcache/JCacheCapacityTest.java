package dev.sluice.it.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.benmanes.caffeine.jcache.configuration.CaffeineConfiguration;
import dev.sluice.jcache.JCacheRateLimiters;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.Spliterators;
import java.util.stream.StreamSupport;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import org.ehcache.config.builders.CacheConfigurationBuilder;
import org.ehcache.config.builders.ResourcePoolsBuilder;
import org.ehcache.jsr107.Eh107Configuration;
import org.junit.jupiter.api.Test;

/**
 * The limiters' bound checked against the cache's own, on Caffeine's and Ehcache's JCache (each keeps its bound in
 * its own configuration type), and a flood of new keys on a bounded Caffeine cache.
 */
final class JCacheCapacityTest {

    private static Cache<String, long[]> caffeine(CacheManager manager, String name, OptionalLong maximumSize) {
        CaffeineConfiguration<String, long[]> config = new CaffeineConfiguration<>(
                JCacheRateLimiters.configuration(Duration.ofHours(1)));
        config.setTypes(String.class, long[].class);
        config.setStoreByValue(false);
        config.setMaximumSize(maximumSize);
        return manager.createCache(name, config);
    }

    @Test
    void caffeine_boundAtMostTheCapacity_builds_largerOrMissing_throwsNamingBoth() {
        CacheManager manager = Caching.getCachingProvider(JCacheCaffeineContractTest.PROVIDER).getCacheManager();
        Cache<String, long[]> bounded = caffeine(manager, "sluice-capacity-bounded", OptionalLong.of(1_000));
        Cache<String, long[]> unbounded = caffeine(manager, "sluice-capacity-unbounded", OptionalLong.empty());
        try {
            JCacheRateLimiters.builder(bounded).capacity(Capacity.maxKeys(1_000)).build().close();
            IllegalArgumentException larger = assertThrows(IllegalArgumentException.class,
                    () -> JCacheRateLimiters.builder(bounded).capacity(Capacity.maxKeys(500)).build());
            assertTrue(larger.getMessage().contains("1000 entries (Caffeine maximumSize)")
                    && larger.getMessage().contains("500 keys"), larger.getMessage());
            IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                    () -> JCacheRateLimiters.builder(unbounded).capacity(Capacity.maxKeys(500)).build());
            assertTrue(missing.getMessage().contains("no bound") && missing.getMessage().contains("500"),
                    missing.getMessage());
            IllegalArgumentException refusing = assertThrows(IllegalArgumentException.class,
                    () -> JCacheRateLimiters.builder(bounded).capacity(Capacity.maxKeys(5_000).refuseNewKeys()).build());
            assertTrue(refusing.getMessage().contains("REFUSE_NEW_KEYS"), refusing.getMessage());
        } finally {
            manager.destroyCache(bounded.getName());
            manager.destroyCache(unbounded.getName());
        }
    }

    @Test
    void ehcache_heapEntriesAreItsBound() {
        CacheManager manager = Caching.getCachingProvider(JCacheEhcacheContractTest.PROVIDER).getCacheManager();
        Cache<String, long[]> bounded = manager.createCache("sluice-capacity-ehcache",
                Eh107Configuration.fromEhcacheCacheConfiguration(CacheConfigurationBuilder.newCacheConfigurationBuilder(
                        String.class, long[].class, ResourcePoolsBuilder.heap(2_000))));
        Cache<String, long[]> standard = manager.createCache("sluice-capacity-ehcache-default",
                JCacheRateLimiters.configuration(Duration.ofHours(1)));
        Cache<String, long[]> created = JCacheRateLimiters.createCache(manager, "sluice-capacity-ehcache-created",
                Duration.ofHours(1), Capacity.maxKeys(3_000));
        try {
            JCacheRateLimiters.builder(bounded).callerRuns(true).capacity(Capacity.maxKeys(2_000)).build().close();
            IllegalArgumentException larger = assertThrows(IllegalArgumentException.class,
                    () -> JCacheRateLimiters.builder(bounded).capacity(Capacity.maxKeys(1_999)).build());
            assertTrue(larger.getMessage().contains("2000 entries (Ehcache heap entries)")
                    && larger.getMessage().contains("1999 keys"), larger.getMessage());
            IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                    () -> JCacheRateLimiters.builder(standard).capacity(Capacity.maxKeys(10_000)).build());
            assertTrue(missing.getMessage().contains("no bound"), missing.getMessage());
            JCacheRateLimiters.builder(created).capacity(Capacity.maxKeys(3_000)).build().close();
            assertThrows(IllegalArgumentException.class,
                    () -> JCacheRateLimiters.builder(created).capacity(Capacity.maxKeys(2_999)).build(),
                    "createCache bounded the Ehcache cache at the capacity it was given");
        } finally {
            manager.destroyCache(bounded.getName());
            manager.destroyCache(standard.getName());
            manager.destroyCache(created.getName());
        }
    }

    /**
     * Bounded by default: a cache Sluice creates gets the default bound, an unbounded cache of the user's is refused
     * with a message that names the fix, and only an explicit {@code boundedElsewhere()} builds on it.
     */
    @Test
    void defaults_createdCacheIsBounded_unboundedCacheRefusedUnlessSaidToBeBoundedElsewhere() {
        CacheManager manager = Caching.getCachingProvider(JCacheCaffeineContractTest.PROVIDER).getCacheManager();
        Cache<String, long[]> created = JCacheRateLimiters.createCache(manager, "sluice-capacity-default", Duration.ofHours(1));
        Cache<String, long[]> unbounded = caffeine(manager, "sluice-capacity-user", OptionalLong.empty());
        try {
            try (RateLimiters limiters = JCacheRateLimiters.create(created)) {
                assertEquals(Capacity.defaults().resolveMaxKeys(), limiters.storeStatistics().maxKeys());
            }
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                    () -> JCacheRateLimiters.create(unbounded));
            assertTrue(refused.getMessage().contains("no bound") && refused.getMessage().contains("maximumSize"),
                    refused.getMessage());
            JCacheRateLimiters.builder(unbounded).boundedElsewhere().build().close();
        } finally {
            manager.destroyCache(created.getName());
            manager.destroyCache(unbounded.getName());
        }
    }

    /**
     * 200,000 new keys into a Caffeine cache bounded at 5,000: the cache stays near its bound (Caffeine evicts
     * asynchronously, so a little above it in between), every decision is the store's, and a hot key asked every 20
     * new keys, in use throughout, keeps its budget: exactly its limit of 100 granted.
     */
    @Test
    void flood_onBoundedCaffeine_staysBounded_hotKeyStaysExact() {
        CacheManager manager = Caching.getCachingProvider(JCacheCaffeineContractTest.PROVIDER).getCacheManager();
        Cache<String, long[]> cache = JCacheRateLimiters.createCache(manager, "sluice-capacity-flood", Duration.ofHours(1),
                Capacity.maxKeys(5_000));
        try (RateLimiters limiters = JCacheRateLimiters.builder(cache).capacity(Capacity.maxKeys(5_000)).build()) {
            PartitionedRateLimiter<String> flood = limiters.partitioned("flood",
                    LimitSpec.fixedWindow(10, Duration.ofHours(1)));
            RateLimiter hot = limiters.limiter("hot", LimitSpec.fixedWindow(100, Duration.ofHours(1)));
            long hotGranted = 0;
            for (int i = 0; i < 200_000; i++) {
                Lease lease = flood.tryAcquire("k" + i, 1);
                assertTrue(lease.isAcquired() && !lease.isDegraded(), lease.toString());
                if (i % 20 == 0) {
                    hotGranted += hot.tryAcquire(1).isAcquired() ? 1 : 0;
                }
            }
            assertEquals(100, hotGranted, "the hot key was never evicted");
            assertFalse(hot.tryAcquire(1).isAcquired());
            long held = StreamSupport.stream(Spliterators.spliteratorUnknownSize(cache.iterator(), 0), false).count();
            assertTrue(held <= 5_000 * 1.1, "held " + held);
            long evictions = limiters.storeStatistics().evictions();
            assertTrue(evictions >= 200_000 - 5_000 * 1.1 && evictions <= 200_001,
                    "every eviction counted and reported: " + evictions);
        } finally {
            manager.destroyCache(cache.getName());
        }
    }
}
