package dev.sluice.it.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.jcache.JCacheRateLimiters;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.UUID;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link FailureMode#LOCAL} on JCache: a cache that fails (its manager closed, as a provider shutting down does)
 * is a store away, on each provider, so the replica decides on its configured share, degraded; and a cache cannot
 * count the replicas that share it, so the setting is required.
 */
final class JCacheLocalFallbackTest {

    @ParameterizedTest
    @ValueSource(strings = {JCacheCaffeineContractTest.PROVIDER, JCacheEhcacheContractTest.PROVIDER})
    void cacheClosed_decidesOnTheShare(String provider) {
        CachingProvider caching = Caching.getCachingProvider(provider);
        CacheManager manager = caching.getCacheManager(caching.getDefaultURI(), new ClassLoader(getClass()
                .getClassLoader()) {}); // a manager of this test's own, closed below
        Cache<String, long[]> cache = JCacheRateLimiters.createCache(manager, "fallback-" + UUID.randomUUID(),
                Duration.ofHours(1));
        try (RateLimiters limiters = JCacheRateLimiters.create(cache)) {
            LimitSpec spec = LimitSpec.slidingLog(9, Duration.ofMillis(1_800_500));
            IllegalArgumentException unset = assertThrows(IllegalArgumentException.class, () -> limiters.limiter("x",
                    spec, LimiterOptions.builder().failureMode(FailureMode.LOCAL).build()));
            assertTrue(unset.getMessage().contains("fallbackReplicas"), unset.getMessage());

            RateLimiter limiter = limiters.limiter("fallback", spec, LimiterOptions.builder()
                    .failureMode(FailureMode.LOCAL).fallbackReplicas(4).build());
            Lease fromCache = limiter.tryAcquire(1);
            assertTrue(fromCache.isAcquired() && !fromCache.isDegraded(), fromCache.toString());

            manager.close();
            int granted = 0;
            for (int i = 0; i < 4; i++) {
                Lease lease = limiter.tryAcquire(1);
                assertTrue(lease.isDegraded() && lease.isLocalFallback(), lease.toString());
                assertEquals(2, lease.limit(), "9 over 4 replicas");
                granted += lease.isAcquired() ? 1 : 0;
            }
            assertEquals(2, granted);
            assertFalse(limiter.tryAcquire(1).isAcquired());
        } finally {
            manager.close();
        }
    }
}
