package dev.sluice.it.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.jcache.JCacheRateLimiters;
import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.Spliterators;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.StreamSupport;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The JCache store's own behaviour: the self-test, the executor, the timeout, the cache helpers. */
final class JCacheStoreTest {
    private static CacheManager manager;
    private static Cache<String, long[]> cache;

    @BeforeAll
    static void start() {
        manager = Caching.getCachingProvider(JCacheCaffeineContractTest.PROVIDER).getCacheManager();
        cache = JCacheRateLimiters.createCache(manager, "sluice-store-test", Duration.ofHours(1));
    }

    @AfterAll
    static void stop() {
        manager.destroyCache(cache.getName());
    }

    private static long keysUnder(String prefix) {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(cache.iterator(), 0), false)
                .filter(e -> e.getKey().startsWith(prefix)).count();
    }

    @Test
    void selfTest_atomicProvider_passesAndRemovesItsKey() {
        String prefix = "atomic-" + UUID.randomUUID();
        JCacheRateLimiters.create(cache, prefix).close();
        assertEquals(0, keysUnder(prefix));
    }

    @Test
    void selfTest_nonAtomicInvoke_throwsNamingTheProblem() {
        String prefix = "racy-" + UUID.randomUUID();
        Cache<String, long[]> racy = NonAtomicCache.nonAtomic(cache);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> JCacheRateLimiters.create(racy, prefix));
        assertTrue(e.getMessage().contains("is not atomic per key") && e.getMessage().contains("instead of 1000")
                && e.getMessage().contains("CaffeineCachingProvider"), e.getMessage());
        assertEquals(0, keysUnder(prefix), "scratch key removed after a failure too");
    }

    @Test
    void selfTest_off_buildsOnANonAtomicCache() {
        try (RateLimiters limiters = JCacheRateLimiters.builder(NonAtomicCache.nonAtomic(cache)).selfTest(false).build()) {
            assertTrue(limiters.limiter("off-" + UUID.randomUUID(), LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                    .tryAcquire(1).isAcquired());
        }
    }

    @Test
    void acquireAsync_userExecutor_runsTheStepThere() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Executor counting = command -> {
            ran.incrementAndGet();
            pool.execute(command);
        };
        try (RateLimiters limiters = JCacheRateLimiters.builder(cache).executor(counting).selfTest(false).build()) {
            RateLimiter limiter = limiters.limiter("async-" + UUID.randomUUID(), LimitSpec.fixedWindow(2, Duration.ofMinutes(1)));
            assertTrue(limiter.acquireAsync(1).get(10, TimeUnit.SECONDS).isAcquired());
            assertEquals(1, ran.get());
            assertTrue(limiter.tryAcquire(1).isAcquired()); // Caffeine: in the caller, not the executor
            assertEquals(1, ran.get());
        } finally {
            pool.shutdownNow();
        }
    }

    /** A provider that hangs cannot hold tryAcquire past its decision timeout when callers do not run steps. */
    @Test
    void tryAcquire_hangingProviderOffTheCallerThread_honoursDecisionTimeout() {
        CountDownLatch release = new CountDownLatch(1);
        Cache<String, long[]> hanging = NonAtomicCache.before(cache, () -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (RateLimiters limiters = JCacheRateLimiters.builder(hanging).callerRuns(false).selfTest(false).build()) {
            RateLimiter limiter = limiters.limiter("hang-" + UUID.randomUUID(), LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                    LimiterOptions.builder().decisionTimeout(Duration.ofMillis(200)).build());
            long start = System.nanoTime();
            assertThrows(DecisionUnavailableException.class, () -> limiter.tryAcquire(1));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis < 5_000, "returned after " + millis + " ms");
        } finally {
            release.countDown();
        }
    }

    /**
     * Regression: a cache made for {@code fixedWindow(10, 1 s)} silently took a {@code slidingLog(3, 10 s)}, whose
     * state then expired under it (18 granted in 6 s, limit 3). Creating such a limiter now fails, on every
     * provider, naming both durations.
     */
    @Test
    void limiter_specOutlivesTheCachesExpiry_failsAtCreationNamingBothDurations() {
        for (String provider : new String[] {JCacheCaffeineContractTest.PROVIDER, JCacheEhcacheContractTest.PROVIDER}) {
            CacheManager m = Caching.getCachingProvider(provider).getCacheManager();
            String name = "sluice-short-" + UUID.randomUUID();
            Cache<String, long[]> small = JCacheRateLimiters.createCache(m, name,
                    JCacheRateLimiters.maxStateLifetime(LimitSpec.fixedWindow(10, Duration.ofSeconds(1))));
            try (RateLimiters limiters = JCacheRateLimiters.builder(small).selfTest(false).build()) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> limiters.limiter("long", LimitSpec.slidingLog(3, Duration.ofSeconds(10))));
                assertTrue(e.getMessage().contains("1000 ms") && e.getMessage().contains("10000 ms"), e.getMessage());
                assertThrows(IllegalArgumentException.class,
                        () -> limiters.partitioned("long", LimitSpec.slidingLog(3, Duration.ofSeconds(10))));
                assertTrue(limiters.limiter("fits", LimitSpec.fixedWindow(10, Duration.ofSeconds(1))).tryAcquire(1)
                        .isAcquired(), "a spec within the cache's expiry is accepted");
            } finally {
                m.destroyCache(name);
            }
        }
    }

    @Test
    void configuration_nonPositiveLifetime_throws() {
        assertThrows(IllegalArgumentException.class, () -> JCacheRateLimiters.configuration(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> JCacheRateLimiters.configuration(Duration.ofSeconds(-1)));
    }

    @Test
    void createCache_existingName_returnsTheSameCache() {
        assertEquals(cache.getName(),
                JCacheRateLimiters.createCache(manager, cache.getName(), Duration.ofHours(1)).getName());
    }

    @Test
    void maxStateLifetime_coversEachAlgorithmsLongestState() {
        assertEquals(Duration.ofMinutes(1), JCacheRateLimiters.maxStateLifetime(LimitSpec.fixedWindow(5, Duration.ofMinutes(1))));
        assertEquals(Duration.ofMinutes(2), JCacheRateLimiters.maxStateLifetime(LimitSpec.slidingCounter(5, Duration.ofMinutes(1))));
        assertEquals(Duration.ofMinutes(5), JCacheRateLimiters.maxStateLifetime(LimitSpec.tokenBucket(5, 1, Duration.ofMinutes(1))));
        assertEquals(Duration.ofMinutes(5), JCacheRateLimiters.maxStateLifetime(
                LimitSpec.fixedWindow(5, Duration.ofMinutes(1)), LimitSpec.tokenBucket(5, 1, Duration.ofMinutes(1))));
        // A calendar month's longest window, a day to spare, whenever it is asked and in a composite too.
        assertEquals(Duration.ofDays(32), JCacheRateLimiters.maxStateLifetime(LimitSpec.allOf(
                LimitSpec.fixedWindow(5, Duration.ofMinutes(1)), LimitSpec.calendarWindow(5,
                        dev.sluice.limiter.CalendarPeriod.MONTH, java.time.ZoneId.of("Europe/Paris")))));
    }
}
