package dev.sluice.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.cache.impl.HazelcastServerCachingProvider;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Coalescing;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.it.contract.CalendarRealTime;
import dev.sluice.it.contract.RealTimeAccuracy;
import dev.sluice.it.contract.ResetRealTime;
import dev.sluice.it.contract.SettleRealTime;
import dev.sluice.it.hazelcast.TestCluster;
import dev.sluice.jcache.JCacheRateLimiters;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link RealTimeAccuracy} on every backend, on the real clock with nothing injected: in-process (also with every
 * key but one on an overflow cell); Hazelcast
 * through 3 embedded members and through a client (with the members), coalescing on and off, every
 * durability (the asynchronous backup coalesced only); JCache on Caffeine, Ehcache and Hazelcast. Each backend runs every algorithm at once, 8
 * callers each, for 3 seconds ({@value #BACKENDS_PROPERTY} may choose fewer backends). The table of granted against allowed goes to standard output and to
 * {@code it-tests/target/realtime-accuracy.md}, with how far the store's decision times lay outside the callers'
 * send-to-answer spans ({@code early}, {@code late}) and the members' cluster-time offsets seen through the suite.
 */
final class RealTimeAccuracyTest {
    private static final Duration RUN = Duration.ofSeconds(3);
    private static final int CALLERS = 8;
    private static final List<LimitSpec> SPECS = RealTimeAccuracy.specs();

    private static TestCluster cluster;
    private static HazelcastInstance client;
    /**
     * The members' cluster time minus this JVM's clock, sampled through the suite: the offset between the clock
     * Hazelcast decides with and the callers' (a member takes it from the master's heartbeat as it arrives, so a
     * late heartbeat sets it back by its delay). Reported, not checked: the checks read the store's clock itself.
     */
    private static final long[] clusterTimeOffsets = {Long.MAX_VALUE, Long.MIN_VALUE};
    private static Thread offsetSampler;
    private static final List<RealTimeAccuracy.Result> results = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start("sluice-realtime", 3, null); // null: the members' own cluster time
        client = cluster.addClient(SluiceHazelcast.configure(cluster.clientConfig()));
        // No run may straddle the partitions' first migrations: a key whose owner changes mid-run moves to
        // another member's clock, and a stalled migration starves the lower bound. Then a short run warms up
        // every path (discarded), so that the first measured backend does not pay for class loading and JIT.
        // The checks read each grant's time on the store's own clock, so the members' cluster-time offsets need
        // not settle.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!cluster.members.stream().allMatch(m -> m.getPartitionService().isClusterSafe())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the real-time cluster did not settle within 60 s");
            }
            Thread.sleep(50);
        }
        offsetSampler = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                for (HazelcastInstance m : cluster.members) {
                    long offset = m.getCluster().getClusterTime() - System.currentTimeMillis();
                    synchronized (clusterTimeOffsets) {
                        clusterTimeOffsets[0] = Math.min(clusterTimeOffsets[0], offset);
                        clusterTimeOffsets[1] = Math.max(clusterTimeOffsets[1], offset);
                    }
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "realtime-cluster-time-offsets");
        offsetSampler.setDaemon(true);
        offsetSampler.start();
        for (String warm : List.of("hazelcast-client", "hazelcast-embedded-coalescing")) {
            List<AutoCloseable> resources = new ArrayList<>();
            try {
                RealTimeAccuracy.run(warm, replicas(warm, resources), SPECS,
                        LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build(), Duration.ofSeconds(1), 2);
            } finally {
                for (AutoCloseable r : resources) {
                    r.close();
                }
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (offsetSampler != null) {
            offsetSampler.interrupt();
        }
        if (cluster != null) {
            cluster.close();
        }
        StringBuilder report = new StringBuilder(RealTimeAccuracy.Result.header()).append('\n');
        synchronized (results) {
            results.forEach(r -> report.append(r.row()).append('\n'));
        }
        synchronized (clusterTimeOffsets) {
            report.append("\nThe members' cluster time minus the callers' clock, sampled every 20 ms: ")
                    .append(clusterTimeOffsets[0]).append(" to ").append(clusterTimeOffsets[1]).append(" ms\n");
        }
        System.out.print(report);
        Files.writeString(Path.of("target", "realtime-accuracy.md"), report);
    }

    /**
     * System property: a comma-separated list of the backends to run (all when unset); the compatibility run
     * picks the Hazelcast ones it needs on each release.
     */
    static final String BACKENDS_PROPERTY = "sluice.realtime.backends";

    private static Stream<String> only(Stream<String> backends) {
        String chosen = System.getProperty(BACKENDS_PROPERTY, "");
        if (chosen.isBlank()) {
            return backends;
        }
        List<String> names = List.of(chosen.split(","));
        return backends.filter(names::contains);
    }

    static Stream<String> backends() {
        return only(allBackends());
    }

    private static Stream<String> allBackends() {
        return Stream.of("in-process", "in-process-overflow",
                "hazelcast-embedded", "hazelcast-embedded-ephemeral",
                "hazelcast-embedded-coalescing", "hazelcast-embedded-coalescing-ephemeral",
                "hazelcast-client", "hazelcast-client-ephemeral",
                "hazelcast-client-coalescing", "hazelcast-client-coalescing-ephemeral",
                "hazelcast-embedded-coalescing-async-backup", "hazelcast-client-coalescing-async-backup",
                "jcache-caffeine", "jcache-ehcache", "jcache-hazelcast");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void everyAlgorithm_realClockShortWindows_staysWithinItsBound(String backend) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            List<RateLimiters> replicas = replicas(backend, resources);
            LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10))
                    .durability(durability(backend)).build();
            // A concurrency key cannot share a cell's leases: beyond the bound it is denied by design.
            List<LimitSpec> specs = backend.endsWith("-overflow")
                    ? SPECS.stream().filter(dev.sluice.limiter.algorithm.Overflow::shares).toList() : SPECS;
            List<RealTimeAccuracy.Result> run = RealTimeAccuracy.run(backend, replicas, specs, options, RUN, CALLERS);
            results.addAll(run);
            assertAll(run.stream().map(r -> () -> assertTrue(r.ok(), r.row())));
        } finally {
            for (int i = resources.size() - 1; i >= 0; i--) {
                resources.get(i).close();
            }
        }
    }

    /**
     * A limit changed live to a longer window (130 ms to 1,370 ms) on the real clock, old spec on one replica and
     * new on another: a key the new spec touched before the old state expired never starts over within the new
     * spec's hold; a key nothing asked until the old state's expiry starts over, as docs/semantics.md says.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("backends")
    void liveChangeToALongerWindow_touchedNeverStartsOver_untouchedStartsOver(String backend) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10))
                    .durability(durability(backend)).build();
            List<String> problems = RealTimeAccuracy.liveChange(backend, replicas(backend, resources), options);
            assertTrue(problems.isEmpty(), String.join("\n", problems));
        } finally {
            for (int i = resources.size() - 1; i >= 0; i--) {
                resources.get(i).close();
            }
        }
    }

    /** {@link ResetRealTime}: a reset on the real clock grants no more than it set until its window ends. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("resetBackends")
    void resetToAGivenRemaining_realClock_grantsNoMoreUntilItsWindowEnds(String backend) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10))
                    .durability(durability(backend)).build();
            List<String> problems = ResetRealTime.check(backend, replicas(backend, resources), options);
            assertTrue(problems.isEmpty(), String.join("\n", problems));
        } finally {
            for (int i = resources.size() - 1; i >= 0; i--) {
                resources.get(i).close();
            }
        }
    }

    /** {@link SettleRealTime}: a debt on the real clock is paid from the next window's budget before its grants. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("resetBackends")
    void debtOnTheRealClock_isPaidBeforeTheNextWindowGrants(String backend) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10))
                    .durability(durability(backend)).build();
            List<String> problems = SettleRealTime.check(backend, replicas(backend, resources), options);
            assertTrue(problems.isEmpty(), String.join("\n", problems));
        } finally {
            for (int i = resources.size() - 1; i >= 0; i--) {
                resources.get(i).close();
            }
        }
    }

    /** {@link CalendarRealTime}: a daily calendar quota across a midnight 1.3 s away, by the store's clock. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("calendarBackends")
    void dailyCalendarQuota_acrossMidnight_freshBudgetAtTheStoresMidnight(String backend) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build();
            List<String> problems = CalendarRealTime.check(backend, replicas(backend, resources), options);
            assertTrue(problems.isEmpty(), String.join("\n", problems));
        } finally {
            for (int i = resources.size() - 1; i >= 0; i--) {
                resources.get(i).close();
            }
        }
    }

    static Stream<String> calendarBackends() {
        return only(Stream.of("in-process", "hazelcast-embedded", "hazelcast-client", "jcache-caffeine",
                "jcache-hazelcast"));
    }

    /** One of each store: a key on a cell is never reset, so the overflowing store has its own test. */
    static Stream<String> resetBackends() {
        return only(Stream.of("in-process", "hazelcast-embedded", "hazelcast-client-coalescing", "jcache-caffeine",
                "jcache-hazelcast"));
    }

    /**
     * 10 per second and 50 per minute as one composite step, 32 callers over every member (and a client) for
     * 6 s: no 1-second interval holds more than 10, and the minute's 50 bind exactly (the second's limit
     * alone would allow 60 in that time).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("compositeBackends")
    void composite10PerSecondAnd50PerMinute_32Callers_neitherExceeded(String backend) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            LimitSpec spec = LimitSpec.allOf(LimitSpec.slidingLog(10, Duration.ofSeconds(1)),
                    LimitSpec.slidingLog(50, Duration.ofMinutes(1)));
            List<RealTimeAccuracy.Result> run = RealTimeAccuracy.run(backend + " 32 callers", replicas(backend, resources),
                    List.of(spec), LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build(),
                    Duration.ofSeconds(6), 32);
            results.addAll(run);
            RealTimeAccuracy.Result result = run.get(0);
            assertTrue(result.ok(), result.row());
            assertEquals(50, result.granted(), result.row());
        } finally {
            for (int i = resources.size() - 1; i >= 0; i--) {
                resources.get(i).close();
            }
        }
    }

    static Stream<String> compositeBackends() {
        return only(Stream.of("hazelcast-embedded", "hazelcast-client-coalescing"));
    }

    /** {@link dev.sluice.it.contract.PlansRealTime}: each plan's limit per store window on the real clock. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("planBackends")
    void plans_realClockShortWindow_eachClientHeldToItsPlansLimit(String backend) throws Exception {
        List<AutoCloseable> resources = new ArrayList<>();
        try {
            LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build();
            List<String> problems = dev.sluice.it.contract.PlansRealTime.check(backend, replicas(backend, resources),
                    options);
            assertTrue(problems.isEmpty(), String.join("\n", problems));
        } finally {
            for (int i = resources.size() - 1; i >= 0; i--) {
                resources.get(i).close();
            }
        }
    }

    static Stream<String> planBackends() {
        return only(Stream.of("in-process", "hazelcast-embedded", "hazelcast-client", "jcache-caffeine",
                "jcache-hazelcast"));
    }

    private static Durability durability(String backend) {
        return backend.endsWith("-ephemeral") ? Durability.EPHEMERAL
                : backend.endsWith("-async-backup") ? Durability.REPLICATED_ASYNC : Durability.REPLICATED;
    }

    private static List<RateLimiters> replicas(String backend, List<AutoCloseable> resources) {
        List<RateLimiters> replicas = new ArrayList<>();
        if (backend.equals("in-process")) {
            replicas.add(LocalRateLimiters.create());
        } else if (backend.equals("in-process-overflow")) {
            // Exact states fill their share of the bound first, so every key of the suite is decided on an overflow
            // cell, on the real clock; the cells' share holds them all. As many cells as a table may have, so that
            // the suite's few keys do not share one and are decided exactly.
            dev.sluice.limiter.Capacity capacity = dev.sluice.limiter.Capacity.maxKeys(4_000)
                    .withOverflowCells(dev.sluice.limiter.Capacity.MAX_OVERFLOW_CELLS);
            RateLimiters overflowing = LocalRateLimiters.create(java.time.InstantSource.system(), capacity);
            var filler = overflowing.partitioned("filler", LimitSpec.fixedWindow(1, Duration.ofDays(1)));
            long exact = dev.sluice.limiter.Capacity.exactUnits(capacity.policy(), 4_000);
            for (int i = 0; i < exact; i++) {
                filler.tryAcquire("f" + i, 1);
            }
            replicas.add(overflowing);
        } else if (backend.startsWith("hazelcast-")) {
            Coalescing coalescing = backend.contains("-coalescing")
                    ? Coalescing.on() : Coalescing.disabled();
            if (backend.startsWith("hazelcast-client")) {
                replicas.add(HazelcastRateLimiters.create(client, coalescing));
            }
            cluster.members.forEach(m -> replicas.add(HazelcastRateLimiters.create(m, coalescing)));
        } else {
            for (Cache<String, long[]> cache : caches(backend, resources)) {
                replicas.add(JCacheRateLimiters.create(cache));
            }
        }
        resources.addAll(replicas);
        return replicas;
    }

    /** Two handles on one cache: for Hazelcast, one through each of two members. */
    private static List<Cache<String, long[]>> caches(String backend, List<AutoCloseable> resources) {
        String name = "sluice-realtime-" + UUID.randomUUID();
        List<LimitSpec> all = new ArrayList<>(SPECS);
        RealTimeAccuracy.liveChanges().forEach(pair -> all.addAll(List.of(pair)));
        all.add(LimitSpec.calendarWindow(1, dev.sluice.limiter.CalendarPeriod.DAY, java.time.ZoneOffset.UTC)); // CalendarRealTime's
        Duration lifetime = JCacheRateLimiters.maxStateLifetime(all.get(0),
                all.subList(1, all.size()).toArray(LimitSpec[]::new));
        if (backend.equals("jcache-hazelcast")) {
            CachingProvider provider = Caching.getCachingProvider("com.hazelcast.cache.HazelcastMemberCachingProvider");
            CacheManager first = provider.getCacheManager(provider.getDefaultURI(), provider.getDefaultClassLoader(),
                    HazelcastCachingProvider.propertiesByInstanceItself(cluster.members.get(0)));
            CacheManager second = new HazelcastServerCachingProvider(cluster.members.get(1)).getCacheManager();
            Cache<String, long[]> cache = JCacheRateLimiters.createCache(first, name, lifetime);
            resources.add(() -> first.destroyCache(name));
            return List.of(cache, JCacheRateLimiters.createCache(second, name, lifetime));
        }
        String providerClass = backend.equals("jcache-caffeine")
                ? "com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider"
                : "org.ehcache.jsr107.EhcacheCachingProvider";
        CacheManager manager = Caching.getCachingProvider(providerClass).getCacheManager();
        Cache<String, long[]> cache = JCacheRateLimiters.createCache(manager, name, lifetime);
        resources.add(() -> manager.destroyCache(name));
        return List.of(cache, cache);
    }
}
