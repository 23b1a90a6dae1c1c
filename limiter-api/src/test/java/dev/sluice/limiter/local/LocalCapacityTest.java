package dev.sluice.limiter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.StoreStatistics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The in-process store's bound ({@link Capacity}): a flood of new keys, both policies, and the bound's API. */
final class LocalCapacityTest {
    private final ManualClock clock = new ManualClock();

    /**
     * The flood: 3 threads send 900,000 distinct partitions of {@code fixedWindow(10, 1 h)} to a store bounded at
     * 200,000 keys, while a fourth asks a hot key of {@code fixedWindow(1000, 1 h)} all along. The store never holds
     * more than its bound (sampled throughout), every decision is the store's (none degraded), the evictions are
     * exactly the keys beyond the bound, and the hot key, in use all along, is never evicted: it grants exactly its
     * 1,000 (an eviction would start its budget over and grant more).
     */
    @Test
    @Timeout(value = 280, unit = TimeUnit.SECONDS) // a hang guard: about 10 s alone, several times that beside other builds
    void flood_evictingStore_staysAtItsBound_hotKeyStaysExact() throws Exception {
        // The hot key must be asked at least once while the flood brings a bound's worth of new keys (here about
        // 0.7 s) or it is, rightly, the least recently used: a bound this large keeps that true on a loaded machine.
        int bound = 200_000;
        int threads = 3;
        int perThread = 300_000;
        RateLimiters limiters = LocalRateLimiters.create(clock,
                Capacity.maxKeys(bound).evictLeastRecentlyUsedResettingBudgets());
        LocalDecisionStore store = storeOf(limiters);
        // Every decision is counted, so none may time out, not even behind a starved machine's collector.
        LimiterOptions patient = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(60)).build();
        PartitionedRateLimiter<String> flood = limiters.partitioned("flood", LimitSpec.fixedWindow(10, Duration.ofHours(1)),
                patient);
        RateLimiter hot = limiters.limiter("hot", LimitSpec.fixedWindow(1_000, Duration.ofHours(1)), patient);
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        AtomicLong degraded = new AtomicLong();
        AtomicLong largest = new AtomicLong();
        try {
            List<Future<?>> floods = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                floods.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        Lease lease = flood.tryAcquire("t" + thread + "-" + i, 1);
                        if (lease.isDegraded() || !lease.isAcquired()) {
                            degraded.incrementAndGet();
                        }
                        if ((i & 1023) == 0) {
                            largest.accumulateAndGet(store.held(), Math::max);
                        }
                    }
                }));
            }
            java.util.concurrent.atomic.AtomicBoolean flooding = new java.util.concurrent.atomic.AtomicBoolean(true);
            long[] asked = new long[1];
            Future<Long> hotGrants = pool.submit(() -> {
                long granted = 0;
                while (flooding.get()) {
                    Lease lease = hot.tryAcquire(1);
                    assertFalse(lease.isDegraded());
                    granted += lease.isAcquired() ? 1 : 0;
                    asked[0]++;
                }
                return granted;
            });
            for (Future<?> f : floods) {
                f.get();
            }
            flooding.set(false);
            assertEquals(1_000, hotGrants.get(), "the hot key's budget never started over (asked " + asked[0] + ")");
            assertTrue(asked[0] > 5_000, "the hot key was asked throughout: " + asked[0]);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, degraded.get(), "every new key was granted by the store");
        assertTrue(largest.get() <= bound, "held " + largest.get() + " keys, bound " + bound);
        StoreStatistics stats = limiters.storeStatistics();
        assertEquals(bound, stats.maxKeys());
        assertEquals(bound, stats.keys(), "full, and no more");
        assertEquals((long) threads * perThread + 1 - bound, stats.evictions(), "every key beyond the bound evicted one");
        assertEquals(0, stats.capacityRefusals());
        assertFalse(hot.tryAcquire(1).isAcquired(), "still exact after the flood");
        limiters.close();
    }

    /**
     * Refusing at the bound: once 1,000 keys hold state, a new key's decision is a degraded deny whatever the failure
     * mode (ALLOW would leave a key beyond the bound unlimited; THROW does not throw), counted as a capacity refusal;
     * keys with state still decide exactly; once their state expires, the next new key finds room.
     */
    @Test
    void refusingStore_atItsBound_newKeysAreDeniedWhateverTheFailureMode_keysWithStateStillDecide() {
        RateLimiters limiters = LocalRateLimiters.create(clock, Capacity.maxKeys(1_000).refuseNewKeys());
        LimitSpec spec = LimitSpec.fixedWindow(2, Duration.ofSeconds(10));
        PartitionedRateLimiter<String> deny = limiters.partitioned("deny", spec,
                LimiterOptions.builder().failureMode(FailureMode.DENY).build());
        PartitionedRateLimiter<String> strict = limiters.partitioned("strict", spec);
        PartitionedRateLimiter<String> open = limiters.partitioned("open", spec,
                LimiterOptions.builder().failureMode(FailureMode.ALLOW).build());
        for (int i = 0; i < 1_000; i++) {
            assertTrue(deny.tryAcquire("k" + i, 1).isAcquired());
        }
        Lease refused = deny.tryAcquire("new", 1);
        assertTrue(refused.isDegraded() && !refused.isAcquired(), refused.toString());
        Lease thrown = strict.tryAcquire("other", 1);
        assertTrue(thrown.isDegraded() && !thrown.isAcquired(), "THROW denies too: " + thrown);
        Lease allowed = open.tryAcquire("third", 1);
        assertTrue(allowed.isDegraded() && !allowed.isAcquired(), "ALLOW denies too: " + allowed);
        assertTrue(deny.tryAcquire("k7", 1).isAcquired(), "a key with state is decided as before");
        assertFalse(deny.tryAcquire("k7", 1).isAcquired(), "and exactly");
        LimiterStatistics denyStats = deny.statistics();
        assertEquals(1, denyStats.capacityRefused());
        assertEquals(1, denyStats.degraded());
        assertEquals(1, strict.statistics().capacityRefused());
        assertEquals(1, open.statistics().capacityRefused());
        assertEquals(3, limiters.storeStatistics().capacityRefusals());
        assertEquals(1_000, limiters.storeStatistics().keys());
        assertEquals(0, limiters.storeStatistics().evictions(), "refusing never evicts");

        clock.advance(Duration.ofSeconds(10));
        assertTrue(deny.tryAcquire("new", 1).isAcquired(), "expired state made room");
        limiters.close();
    }

    /** Least recently used goes first: a key decided after the others survives a flood that evicts them. */
    @Test
    void eviction_takesTheLeastRecentlyUsedState() {
        RateLimiters limiters = LocalRateLimiters.create(clock,
                Capacity.maxKeys(100).evictLeastRecentlyUsedResettingBudgets());
        PartitionedRateLimiter<String> p = limiters.partitioned("p", LimitSpec.fixedWindow(1, Duration.ofHours(1)));
        for (int i = 0; i < 100; i++) {
            p.tryAcquire("k" + i, 1);
        }
        assertFalse(p.tryAcquire("k0", 1).isAcquired(), "k0 is now the most recently used");
        for (int i = 0; i < 99; i++) {
            p.tryAcquire("new" + i, 1);
        }
        assertFalse(p.tryAcquire("k0", 1).isAcquired(), "k0 was kept: its window is still spent");
        assertTrue(p.tryAcquire("k1", 1).isAcquired(), "k1 was evicted: its budget started over");
        limiters.close();
    }

    /** A held concurrency lease's state is passed over by eviction, so its permits and fencing tokens survive. */
    @Test
    void eviction_passesOverLiveLeases() {
        RateLimiters limiters = LocalRateLimiters.create(clock, "sluice",
                RuntimeSettings.defaults(), Capacity.maxKeys(100).evictLeastRecentlyUsedResettingBudgets());
        RateLimiter lease = limiters.limiter("lease", LimitSpec.concurrency(1, Duration.ofMinutes(10)));
        Lease held = lease.tryAcquire(1);
        assertTrue(held.isAcquired());
        PartitionedRateLimiter<String> p = limiters.partitioned("p", LimitSpec.fixedWindow(1, Duration.ofHours(1)));
        for (int i = 0; i < 1_000; i++) {
            p.tryAcquire("k" + i, 1);
        }
        assertFalse(lease.tryAcquire(1).isAcquired(), "the held lease still counts");
        held.close();
        limiters.close();
    }

    @Test
    void capacity_rejectsBadBoundsNamingTheValue() {
        IllegalArgumentException keys = assertThrows(IllegalArgumentException.class, () -> Capacity.maxKeys(0));
        assertTrue(keys.getMessage().contains("maxKeys") && keys.getMessage().contains("was 0"), keys.getMessage());
        IllegalArgumentException share = assertThrows(IllegalArgumentException.class, () -> Capacity.heapPercent(91));
        assertTrue(share.getMessage().contains("heapPercent") && share.getMessage().contains("91"), share.getMessage());
        assertThrows(NullPointerException.class, () -> Capacity.maxKeys(5).withPolicy(null));
        IllegalArgumentException cells = assertThrows(IllegalArgumentException.class,
                () -> Capacity.maxKeys(5).withOverflowCells(0));
        assertTrue(cells.getMessage().contains("overflowCells") && cells.getMessage().contains("was 0"),
                cells.getMessage());
        IllegalArgumentException bytes = assertThrows(IllegalArgumentException.class, () -> Capacity.maxBytes(10));
        assertTrue(bytes.getMessage().contains("maxBytes") && bytes.getMessage().contains("10"), bytes.getMessage());
    }

    @Test
    void capacity_heapShareResolvesToKeysPerCopy() {
        Capacity quarter = Capacity.heapPercent(25);
        assertEquals(400L * 1024 * 1024 / 4 / Capacity.ESTIMATED_BYTES_PER_KEY, quarter.resolveMaxKeys(400L << 20, 1));
        assertEquals(quarter.resolveMaxKeys(400L << 20, 1) / 2, quarter.resolveMaxKeys(400L << 20, 2));
        assertEquals(7, Capacity.maxKeys(7).resolveMaxKeys(1L << 40, 3), "a bound in keys is taken as it is");
        assertEquals(Capacity.Policy.SHARE_OVERFLOW_CELLS, Capacity.defaults().policy());
        assertEquals(Capacity.Policy.SHARE_OVERFLOW_CELLS, Capacity.maxKeys(7).policy());
        assertEquals(25, Capacity.maxKeys(100).overflowCells(100), "a quarter of the bound, the cells' share");
        assertEquals(Capacity.DEFAULT_CLUSTER_OVERFLOW_CELLS, Capacity.maxKeys(100).clusterOverflowCells(),
                "a cluster's table never follows one member's bound");
        assertEquals(Capacity.MIN_OVERFLOW_CELLS, Capacity.maxKeys(7).overflowCells(7));
        assertEquals(3, Capacity.maxKeys(7).withOverflowCells(3).overflowCells(7));
        assertEquals(10, Capacity.maxBytes(4_000).resolveMaxKeys(1L << 40, 1), "bytes in key units");
        assertEquals(1, Capacity.unitsOf(5));
        assertEquals(1, Capacity.unitsOf(25));
        assertEquals(2, Capacity.unitsOf(26));
        assertEquals(2_001, Capacity.unitsOf(100_003), "a log of 100,000 weighs as 2,001 small keys");
        assertEquals(Capacity.Policy.REFUSE_NEW_KEYS, Capacity.maxKeys(7).refuseNewKeys().policy());
        assertEquals(Capacity.maxKeys(7).refuseNewKeys(), Capacity.maxKeys(7).withPolicy(Capacity.Policy.REFUSE_NEW_KEYS));
    }

    @Test
    void segments_splitTheBoundExactly() {
        assertEquals(1, LocalDecisionStore.segmentCount(100));
        assertEquals(64, LocalDecisionStore.segmentCount(1_000_000));
        LocalDecisionStore store = new LocalDecisionStore(clock, Capacity.maxKeys(1_001));
        assertEquals(1_001, store.maxKeys());
    }

    private static LocalDecisionStore storeOf(RateLimiters limiters) throws ReflectiveOperationException {
        var field = limiters.getClass().getDeclaredField("store");
        field.setAccessible(true);
        return (LocalDecisionStore) field.get(limiters);
    }
}
