package dev.sluice.it.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.it.contract.Backend;
import dev.sluice.it.contract.ContractSuite;
import dev.sluice.it.contract.Specs;
import dev.sluice.jcache.JCacheRateLimiters;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import javax.cache.Cache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract suite on one JCache provider, plus what is specific to JCache: stale state reads as absent
 * while the entry is still stored, the atomicity self-test passes, and a short throughput run.
 */
abstract class JCacheContractSuite extends ContractSuite {

    /** The cache behind the first replica. */
    protected abstract Cache<String, long[]> cache();

    /** Replicas over {@code caches} (one each), all reading {@code clock}, coalescing as by default. */
    static Backend backend(String name, ManualClock clock, List<Cache<String, long[]>> caches, AutoCloseable resources) {
        return backend(name, clock, caches, resources, Coalescing.on());
    }

    /** Replicas over {@code caches} (one each), all reading {@code clock}, coalescing as given. */
    static Backend backend(String name, ManualClock clock, List<Cache<String, long[]>> caches, AutoCloseable resources,
            Coalescing coalescing) {
        List<RateLimiters> replicas = new ArrayList<>();
        for (Cache<String, long[]> cache : caches) {
            replicas.add(JCacheRateLimiters.builder(cache).clock(clock).coalescing(coalescing).build());
        }
        return new Backend() {
            @Override public String name() { return name; }
            @Override public ManualClock clock() { return clock; }
            @Override public List<RateLimiters> replicas() { return replicas; }
            @Override public void close() throws Exception {
                replicas.forEach(RateLimiters::close);
                resources.close();
            }
        };
    }

    static Stream<LimitSpec> specs5() {
        return Specs.withLimit(5).stream();
    }

    /** The entry outlives the state (the cache's expiry runs on real time); the step alone makes it absent. */
    @ParameterizedTest
    @MethodSource("specs5")
    void staleState_pastItsLifetime_readsAsAbsentWhileStillStored(LimitSpec spec) {
        RateLimiter limiter = limiter(backend().limiters(), unique("stale"), spec);
        String key = limiter.key();
        assertTrue(limiter.tryAcquire(5).isAcquired());
        assertFalse(limiter.tryAcquire(1).isAcquired());
        backend().clock().advance(JCacheRateLimiters.maxStateLifetime(spec));
        assertTrue(cache().containsKey(key), "still stored on " + backend().name());
        assertEquals(5, limiter.tryAcquire(0).remaining(), spec.algorithm() + " on " + backend().name());
        assertTrue(limiter.tryAcquire(5).isAcquired());
    }

    @Test
    void selfTest_onThisProvider_passes() {
        String prefix = unique("self-test");
        JCacheRateLimiters.create(cache(), prefix).close();
        for (Cache.Entry<String, long[]> e : cache()) {
            assertFalse(e.getKey().startsWith(prefix), "scratch key left: " + e.getKey());
        }
    }

    /**
     * Not an assertion on timings: prints decisions per second for the report, with {@code tryAcquire} running
     * {@code invoke} in the caller thread and on the executor. The results also go to
     * {@code it-tests/target/jcache-throughput.txt}.
     */
    @Test
    void throughput_printsDecisionsPerSecond() throws Exception {
        LimitSpec spec = LimitSpec.tokenBucket(LimitSpec.MAX_LIMIT, LimitSpec.MAX_LIMIT, Duration.ofSeconds(1));
        LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build();
        StringBuilder report = new StringBuilder();
        for (boolean callerRuns : new boolean[] {true, false}) {
            try (RateLimiters limiters = JCacheRateLimiters.builder(cache()).clock(backend().clock())
                    .callerRuns(callerRuns).selfTest(false).build()) {
                RateLimiter hot = limiters.limiter(unique("throughput"), spec, options);
                StringBuilder line = new StringBuilder("THROUGHPUT " + backend().name()
                        + (callerRuns ? " caller-runs:" : " executor:   "));
                for (int threads : new int[] {1, 8}) {
                    List<RateLimiter> targets = new ArrayList<>();
                    for (int t = 0; t < threads; t++) {
                        targets.add(hot);
                    }
                    run(targets, 200); // warm-up
                    line.append(String.format(" %d thread%s one key %,9.0f/s;", threads, threads == 1 ? " " : "s",
                            run(targets, 500)));
                }
                List<RateLimiter> own = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    own.add(limiters.limiter(unique("throughput"), spec, options));
                }
                run(own, 200);
                line.append(String.format(" 8 threads 8 keys %,9.0f/s", run(own, 500)));
                report.append(line).append('\n');
            }
        }
        System.out.print(report);
        java.nio.file.Files.writeString(java.nio.file.Path.of("target", "jcache-throughput.txt"), report,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }

    /** One thread per limiter calling tryAcquire(1) for {@code millis}; decisions per second. */
    private static double run(List<RateLimiter> limiters, long millis) throws InterruptedException {
        AtomicLong decisions = new AtomicLong();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        long[] window = new long[1];
        for (RateLimiter limiter : limiters) {
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                long n = 0;
                long end = window[0];
                while (System.nanoTime() < end) {
                    Lease lease = limiter.tryAcquire(1);
                    if (lease.isAcquired()) {
                        n++;
                    }
                }
                decisions.addAndGet(n);
            });
            threads.add(t);
            t.start();
        }
        long begin = System.nanoTime();
        window[0] = begin + millis * 1_000_000;
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
        return decisions.get() * 1e9 / (System.nanoTime() - begin);
    }
}
