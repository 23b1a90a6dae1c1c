package dev.sluice.it.jcache;

import dev.sluice.it.contract.Backend;
import dev.sluice.jcache.JCacheRateLimiters;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import java.util.List;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract suite on Caffeine's JCache provider (in-process; two replicas share one cache), with coalescing off:
 * the other providers' suites run with it on, as by default.
 */
final class JCacheCaffeineUncoalescedContractTest extends JCacheContractSuite {
    private static CacheManager manager;
    private static Cache<String, long[]> cache;
    private static Backend backend;

    @BeforeAll
    static void start() {
        CachingProvider provider = Caching.getCachingProvider(JCacheCaffeineContractTest.PROVIDER);
        manager = provider.getCacheManager();
        cache = JCacheRateLimiters.createCache(manager, "sluice-caffeine-uncoalesced-contract", Duration.ofDays(2));
        backend = backend("jcache-caffeine-uncoalesced", new ManualClock(), List.of(cache, cache),
                () -> manager.destroyCache(cache.getName()), Coalescing.disabled());
    }

    @AfterAll
    static void stop() throws Exception {
        backend.close();
    }

    @Override
    protected Backend backend() {
        return backend;
    }

    @Override
    protected Cache<String, long[]> cache() {
        return cache;
    }
}
