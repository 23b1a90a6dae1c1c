package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.StoreStatistics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The maps' bound on a real member (a free port, 71 partitions): map {@code sluice} keeps its states and shares
 * overflow cells at 710 keys per member (the default policy: three quarters of it for exact states, the rest for
 * cells), map {@code refusing} refuses new keys at 710, map {@code evicting} evicts (the explicit opt-in). Callers:
 * the member itself and a client (so a capacity refusal and a decision on a cell also cross the wire). The member reads a manual clock, so windows move only when a test says.
 */
final class HazelcastCapacityTest {
    private static final int[] PORT = FreePorts.take(1);
    private static final int BOUND = 710;
    private static final int TINY = 50;
    /** The exact states the tiny map takes before its keys go to cells. */
    private static final long TINY_EXACT = Capacity.exactUnits(Capacity.Policy.SHARE_OVERFLOW_CELLS, TINY);
    /** Cells of each limiter of map {@code sluice}: two a partition, within the cells' share of its bound. */
    private static final int CELLS = 142;
    private static final LimitSpec FLOOD = LimitSpec.fixedWindow(10, Duration.ofHours(1));
    private static final LimitSpec HOT = LimitSpec.fixedWindow(100, Duration.ofHours(1));
    private static final dev.sluice.limiter.local.ManualClock CLOCK = new dev.sluice.limiter.local.ManualClock();
    private static HazelcastInstance member;
    private static HazelcastInstance client;

    @BeforeAll
    static void start() {
        Config config = HazelcastCoalescingTest.memberConfig("sluice-capacity", PORT, 0);
        SluiceHazelcast.configure(config, "sluice", Capacity.maxKeys(BOUND).withOverflowCells(CELLS));
        SluiceHazelcast.configure(config, "refusing", Capacity.maxKeys(BOUND).refuseNewKeys());
        SluiceHazelcast.configure(config, "evicting", Capacity.maxKeys(BOUND).evictLeastRecentlyUsedResettingBudgets());
        SluiceHazelcast.configure(config, "tiny", Capacity.maxKeys(TINY).withOverflowCells(1));
        config.getUserContext().put(SluiceHazelcast.CLOCK_KEY, CLOCK);
        member = Hazelcast.newHazelcastInstance(config);
        client = HazelcastClient.newHazelcastClient(HazelcastCoalescingTest.clientConfig("sluice-capacity",
                FreePorts.addresses(PORT).get(0)));
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.shutdown();
        }
        if (member != null) {
            member.getLifecycleService().terminate();
        }
    }

    @Test
    void configure_keepsStatesByDefault_evictsOnlyWhenAskedTo() {
        var keeping = member.getConfig().getMapConfig("sluice").getEvictionConfig();
        assertEquals(EvictionPolicy.NONE, keeping.getEvictionPolicy(), "no state that still limits is dropped");
        assertEquals(EvictionPolicy.NONE, member.getConfig().getMapConfig("refusing").getEvictionConfig().getEvictionPolicy());
        var evicting = member.getConfig().getMapConfig("evicting").getEvictionConfig();
        assertEquals(EvictionPolicy.LRU, evicting.getEvictionPolicy());
        assertEquals(MaxSizePolicy.PER_NODE, evicting.getMaxSizePolicy());
        assertEquals(BOUND, evicting.getSize());
        Config defaults = SluiceHazelcast.configure(new Config());
        long expected = Capacity.defaults().resolveMaxKeys(Runtime.getRuntime().maxMemory(), 2);
        assertEquals(expected, SluiceHazelcast.maxKeys(defaults, "sluice"), "a quarter of the heap, two copies a key");
        assertEquals(expected, SluiceHazelcast.maxKeys(defaults, "sluice-async-backup"), "an asynchronous backup is a copy too");
        assertEquals(Capacity.defaults().resolveMaxKeys(Runtime.getRuntime().maxMemory(), 1),
                SluiceHazelcast.maxKeys(defaults, "sluice-ephemeral"), "one copy a key");
        assertEquals(EvictionPolicy.NONE, defaults.getMapConfig("sluice-ephemeral").getEvictionConfig().getEvictionPolicy());
    }

    @Test
    void configure_keepsAnEvictionTheUserSet_unlessGivenACapacity() {
        Config config = new Config();
        config.getMapConfig("sluice").getEvictionConfig().setEvictionPolicy(EvictionPolicy.LFU).setSize(123);
        SluiceHazelcast.configure(config);
        assertEquals(EvictionPolicy.LFU, config.getMapConfig("sluice").getEvictionConfig().getEvictionPolicy());
        assertEquals(123, config.getMapConfig("sluice").getEvictionConfig().getSize());
        SluiceHazelcast.configure(config, "sluice", Capacity.maxKeys(99));
        assertEquals(EvictionPolicy.NONE, config.getMapConfig("sluice").getEvictionConfig().getEvictionPolicy());
        assertEquals(99, SluiceHazelcast.maxKeys(config, "sluice"));
    }

    /**
     * 20,000 new keys through the member and a client, coalesced: the map stays at its bound (each write to a full
     * partition evicts one entry), every key is decided by the store, and the evictions are counted on the member.
     * Which entry goes is Hazelcast's sampled LRU, whose access times are whole seconds; this flood turns every
     * partition over within a second, so it says nothing about which keys survive: the fault suite's flood
     * ({@code FaultKeyFloodTest}) shows a hot key staying exact where each partition holds seconds of new keys.
     */
    @Test
    void flood_evictingMap_staysAtItsBound_evictionsCounted() {
        List<RateLimiters> factories = List.of(HazelcastRateLimiters.create(member, "evicting", "sluice"),
                HazelcastRateLimiters.create(client, "evicting", "sluice"));
        try {
            List<CompletableFuture<Lease>> leases = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                PartitionedRateLimiter<String> flood = factories.get(i & 1).partitioned("flood-evicting", FLOOD,
                        LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).build());
                leases.add(flood.acquireAsync("k" + i, 1));
                if (leases.size() >= 64) {
                    leases.forEach(l -> assertTrue(l.join().isAcquired() && !l.join().isDegraded()));
                    leases.clear();
                }
            }
            leases.forEach(l -> assertTrue(l.join().isAcquired()));
            int held = member.getMap("evicting").size();
            assertTrue(held <= BOUND && held > BOUND / 2, "held " + held + ", bound " + BOUND);
            StoreStatistics stats = factories.get(0).storeStatistics();
            assertEquals(20_000 - held, stats.evictions(), stats.toString());
            assertEquals(held, stats.keys(), stats.toString());
            assertEquals(-1, factories.get(1).storeStatistics().evictions(), "a client sees no member's stats");
        } finally {
            factories.forEach(RateLimiters::close);
        }
    }

    /**
     * The refusing map holds about 710 keys (the member's count is read every few milliseconds, so a burst may pass
     * it by a little): new keys beyond that are refused by the owner, a degraded deny under {@code DENY} and
     * {@code THROW} alike, through the member and over a client's wire; keys with state go on deciding exactly; the
     * counts reach statistics.
     */
    @Test
    void flood_refusingMap_refusesNewKeysAtItsBound_keysWithStateStillDecide() {
        RateLimiters onMember = HazelcastRateLimiters.create(member, "refusing", "sluice");
        RateLimiters onClient = HazelcastRateLimiters.create(client, "refusing", "sluice");
        try {
            // A generous timeout: a degraded lease here must mean a full map, not a slow machine.
            LimiterOptions deny = LimiterOptions.builder().failureMode(FailureMode.DENY)
                    .decisionTimeout(Duration.ofSeconds(30)).build();
            RateLimiter hot = onClient.limiter("hot-refusing", HOT,
                    LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).build());
            assertTrue(hot.tryAcquire(1).isAcquired());
            List<PartitionedRateLimiter<String>> floods = List.of(onMember.partitioned("flood-refusing", FLOOD, deny),
                    onClient.partitioned("flood-refusing", FLOOD, deny));
            int granted = 0;
            int refused = 0;
            long hotGranted = 1;
            long hotAsked = 1;
            List<CompletableFuture<Lease>> leases = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                leases.add(floods.get(i & 1).acquireAsync("k" + i, 1));
                if (leases.size() >= 64 || i == 19_999) {
                    for (CompletableFuture<Lease> l : leases) {
                        Lease lease = l.join();
                        if (lease.isDegraded()) {
                            assertFalse(lease.isAcquired());
                            refused++;
                        } else {
                            assertTrue(lease.isAcquired());
                            granted++;
                        }
                    }
                    leases.clear();
                    hotGranted += hot.tryAcquire(1).isAcquired() ? 1 : 0;
                    hotAsked++;
                }
            }
            // A key admitted while the member's count is read may be missed by it: one per partition thread at most.
            int partitionThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
            assertTrue(granted >= BOUND - 1 - partitionThreads && granted <= BOUND + partitionThreads,
                    granted + " granted, bound " + BOUND);
            assertEquals(20_000 - granted, refused);
            assertEquals(granted + 1, member.getMap("refusing").size());
            assertEquals(Math.min(hotAsked, 100), hotGranted, "the hot key, with state, decided by the store all along");
            for (long i = hotAsked; i < 100; i++) {
                assertTrue(hot.tryAcquire(1).isAcquired());
            }
            assertFalse(hot.tryAcquire(1).isAcquired(), "and exactly: its 100 and no more");
            assertEquals(refused, floods.get(0).statistics().capacityRefused() + floods.get(1).statistics().capacityRefused());
            assertEquals(floods.get(1).statistics().capacityRefused(), onClient.storeStatistics().capacityRefusals());
            assertEquals(0, onMember.storeStatistics().evictions(), "refusing never evicts");
            assertEquals(3L * BOUND, onMember.storeStatistics().maxKeys(), "the three maps' bounds");

            PartitionedRateLimiter<String> strict = onClient.partitioned("strict-refusing", FLOOD,
                    LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).build());
            Lease denied = strict.tryAcquire("another", 1);
            assertTrue(denied.isDegraded() && !denied.isAcquired(), "THROW denies at the bound too: " + denied);
        } finally {
            onMember.close();
            onClient.close();
        }
    }

    /** The flood of ten times the bound, every key in the victim's partition (computed from the public partition hash). */
    @Test
    void floodAimedAtTheVictimsPartition_victimGetsNothingMore_hotKeyExact_memoryBounded() {
        attack("aimed", true);
    }

    @Test
    void untargetedFlood_victimGetsNothingMore_hotKeyExact_memoryBounded() {
        attack("spread", false);
    }

    /**
     * A spent victim ({@code slidingLog(10, 1 h)}) and a hot key ({@code fixedWindow(200, 10 s)}) under exact limits,
     * then 7,100 new keys (ten times the bound) from the member and a client in turn, under {@code ALLOW}: the victim
     * is granted nothing more, the hot key exactly 200 in every window, every flood key is decided by the store (none
     * degraded, none timed out: the flood's cells fit in the cells' share of the bound), and the map holds no more
     * than its bound (cells included) and what one count refresh lets through.
     */
    private void attack(String name, boolean aimed) {
        RateLimiters onMember = HazelcastRateLimiters.create(member);
        RateLimiters onClient = HazelcastRateLimiters.create(client);
        LimiterOptions open = LimiterOptions.builder().failureMode(FailureMode.ALLOW)
                .decisionTimeout(Duration.ofSeconds(30)).build();
        try {
            PartitionedRateLimiter<String> login = onClient.partitioned("login-" + name,
                    LimitSpec.slidingLog(10, Duration.ofHours(1)), open);
            RateLimiter hot = onMember.limiter("hot-" + name, LimitSpec.fixedWindow(200, Duration.ofSeconds(10)), open);
            List<PartitionedRateLimiter<String>> floods = List.of(onMember.partitioned("flood-" + name, FLOOD, open),
                    onClient.partitioned("flood-" + name, FLOOD, open));
            for (int i = 0; i < 10; i++) {
                assertTrue(login.tryAcquire("victim", 1).isAcquired());
            }
            int victimPartition = member.getPartitionService()
                    .getPartition(dev.sluice.limiter.Keys.partitionKey("sluice", "login-" + name, "victim")).getPartitionId();
            List<String> keys = new ArrayList<>();
            for (long n = 0; keys.size() < 10 * BOUND; n++) {
                String id = "k" + n;
                if (!aimed || member.getPartitionService().getPartition(
                        dev.sluice.limiter.Keys.partitionKey("sluice", "flood-" + name, id)).getPartitionId() == victimPartition) {
                    keys.add(id);
                }
            }
            int victimGranted = 0;
            int degraded = 0;
            for (int window = 0; window < 10; window++) {
                int hotGranted = 0;
                for (int i = 0; i < BOUND; i++) {
                    Lease lease = floods.get(i & 1).tryAcquire(keys.get(window * BOUND + i), 1);
                    degraded += lease.isDegraded() ? 1 : 0;
                    if (i % 3 == 0) {
                        hotGranted += hot.tryAcquire(1).isAcquired() ? 1 : 0;
                    }
                    if (i % 10 == 0) {
                        victimGranted += login.tryAcquire("victim", 1).isAcquired() ? 1 : 0;
                    }
                }
                assertEquals(200, hotGranted, "the hot key's window " + window);
                CLOCK.advance(Duration.ofSeconds(10));
            }
            assertEquals(0, victimGranted, "the spent victim was granted nothing more");
            assertEquals(0, degraded, "every flood key decided by the store");
            int cells = CELLS;
            java.util.Set<String> stored = member.<String, long[]>getMap("sluice").keySet();
            java.util.Map<String, Long> cellsByGroup = stored.stream().filter(dev.sluice.limiter.algorithm.Overflow::isCellKey)
                    .collect(java.util.stream.Collectors.groupingBy(k -> k.substring(0, k.lastIndexOf('#')),
                            java.util.stream.Collectors.counting()));
            long exact = stored.size() - cellsByGroup.values().stream().mapToLong(Long::longValue).sum();
            int partitionThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
            assertTrue(exact <= Capacity.exactUnits(Capacity.Policy.SHARE_OVERFLOW_CELLS, BOUND) + partitionThreads,
                    "held " + exact + " exact keys, bound " + BOUND);
            assertTrue(stored.size() <= BOUND + partitionThreads, "held " + stored.size() + " entries, cells included,"
                    + " bound " + BOUND);
            assertTrue(cellsByGroup.values().stream().allMatch(n -> n <= cells),
                    "at most " + cells + " cells a policy and algorithm: " + cellsByGroup);
            assertTrue(onClient.storeStatistics().overflowDecisions() > 0, onClient.storeStatistics().toString());
        } finally {
            onMember.close();
            onClient.close();
            CLOCK.advance(Duration.ofHours(2)); // every state of this attack is worth nothing now
        }
    }

    /**
     * A map of 50 keys and one overflow cell a partition, through a client: new keys of one partition beyond the
     * exact share share their cell's budget, a refund of a cell grant gives nothing back, a key stays on its live
     * cell when room comes back while a key whose cell holds nothing gets a state of its own, a probe answers what an
     * acquisition would, and a new concurrency key at the bound is a degraded deny, under ALLOW too.
     */
    @Test
    void overflowCell_sharedBudget_refundKeepsThePermit_keyStaysOnTheCell_concurrencyDenied() throws Exception {
        RateLimiters limiters = HazelcastRateLimiters.create(client, "tiny", "sluice");
        try {
            LimiterOptions open = LimiterOptions.builder().failureMode(FailureMode.ALLOW)
                    .decisionTimeout(Duration.ofSeconds(30)).build();
            PartitionedRateLimiter<String> fill = limiters.partitioned("fill", LimitSpec.fixedWindow(1, Duration.ofSeconds(5)),
                    LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).build());
            for (int i = 0; i < TINY_EXACT; i++) {
                assertTrue(fill.tryAcquire("k" + i, 1).isAcquired());
            }
            Thread.sleep(2 * MemberCapacity.COUNT_REFRESH_MILLIS); // the member's next count sees the exact share full
            PartitionedRateLimiter<String> p = limiters.partitioned("p", LimitSpec.fixedWindow(3, Duration.ofHours(1)), open);
            List<String> same = idsInOnePartition("p", 8);
            Lease a = p.tryAcquire(same.get(0), 1);
            Lease b = p.tryAcquire(same.get(1), 1);
            Lease c = p.tryAcquire(same.get(2), 1);
            assertTrue(a.isAcquired() && b.isAcquired() && c.isAcquired(), a + " " + b + " " + c);
            assertTrue(p.tryAcquire(same.get(3), 0).isAcquired() == false, "a probe answers what an acquisition would");
            assertFalse(p.tryAcquire(same.get(3), 1).isAcquired(), "the cell's 3 are spent by a, b and c");
            assertFalse(b.refund().join(), "a cell grant keeps its permit");
            assertFalse(p.tryAcquire(same.get(4), 1).isAcquired(), "the cell still holds b's permit");
            assertEquals(TINY_EXACT + 1, member.getMap("tiny").size(), "the exact keys and the one cell");

            PartitionedRateLimiter<String> jobs = limiters.partitioned("jobs", LimitSpec.concurrency(1, Duration.ofMinutes(5)), open);
            Lease job = jobs.tryAcquire("new-job", 1);
            assertTrue(job.isDegraded() && !job.isAcquired(), "a lease cannot be shared: " + job);

            for (int i = 0; i < TINY_EXACT; i++) { // room comes back, as when those keys' states expire
                member.getMap("tiny").delete(dev.sluice.limiter.Keys.partitionKey("sluice", "fill", "k" + i));
            }
            Thread.sleep(2 * MemberCapacity.COUNT_REFRESH_MILLIS);
            assertFalse(p.tryAcquire(same.get(0), 1).isAcquired(), "a stays on its live cell: a fresh exact state would forget");
            assertFalse(p.tryAcquire(same.get(5), 1).isAcquired(), "so does a new key of that cell: it may have spent there");
            String elsewhere = idsInOnePartition("p", 1, partitionOf("p", same.get(0)) + 1).get(0);
            assertTrue(p.tryAcquire(elsewhere, 1).isAcquired(), "a key whose cell holds nothing gets a state of its own");
            StoreStatistics stats = limiters.storeStatistics();
            assertTrue(stats.overflowDecisions() >= 7 && stats.overflowRefusals() >= 3, stats.toString());
        } finally {
            limiters.close();
            CLOCK.advance(Duration.ofHours(2));
        }
    }

    private static int partitionOf(String policy, String id) {
        return member.getPartitionService().getPartition(dev.sluice.limiter.Keys.partitionKey("sluice", policy, id))
                .getPartitionId();
    }

    private static List<String> idsInOnePartition(String policy, int n) {
        return idsInOnePartition(policy, n, 0);
    }

    /** {@code n} partition ids of {@code policy} whose keys live in one partition, the first at or after {@code from}. */
    private static List<String> idsInOnePartition(String policy, int n, int from) {
        int partitions = member.getPartitionService().getPartitions().size();
        List<String> ids = new ArrayList<>();
        int target = -1;
        for (long i = 0; ids.size() < n; i++) {
            String id = policy + "-id-" + i;
            int partition = partitionOf(policy, id);
            if (target < 0 && Math.floorMod(partition - from, partitions) == 0) {
                target = partition;
            }
            if (partition == target) {
                ids.add(id);
            }
        }
        return ids;
    }

    @Test
    void launcherProperties_giveTheBound_badValuesNamed() {
        assertEquals(null, SluiceMember.capacity(null, null, null));
        assertEquals(Capacity.maxKeys(5), SluiceMember.capacity("5", null, null));
        assertEquals(Capacity.maxKeys(5).evictLeastRecentlyUsedResettingBudgets(),
                SluiceMember.capacity("5", null, "evict-resetting-budgets"));
        assertEquals(Capacity.heapPercent(10).refuseNewKeys(), SluiceMember.capacity(null, "10", "refuse"));
        assertEquals(Capacity.defaults().refuseNewKeys(), SluiceMember.capacity(null, null, "REFUSE"));
        IllegalArgumentException both = assertThrows(IllegalArgumentException.class,
                () -> SluiceMember.capacity("5", "10", null));
        assertTrue(both.getMessage().contains(SluiceMember.MAX_KEYS_PROPERTY), both.getMessage());
        IllegalArgumentException policy = assertThrows(IllegalArgumentException.class,
                () -> SluiceMember.capacity("5", null, "drop"));
        assertTrue(policy.getMessage().contains("'drop'"), policy.getMessage());
        IllegalArgumentException number = assertThrows(IllegalArgumentException.class,
                () -> SluiceMember.capacity("lots", null, null));
        assertTrue(number.getMessage().contains("'lots'"), number.getMessage());
        assertEquals(Capacity.maxKeys(5).withOverflowCells(64), SluiceMember.withCells(Capacity.maxKeys(5), "64"));
        assertEquals(Capacity.defaults().withOverflowCells(64), SluiceMember.withCells(null, " 64 "));
        assertEquals(null, SluiceMember.withCells(null, null));
        IllegalArgumentException cells = assertThrows(IllegalArgumentException.class,
                () -> SluiceMember.withCells(null, "many"));
        assertTrue(cells.getMessage().contains(SluiceMember.OVERFLOW_CELLS_PROPERTY) && cells.getMessage()
                .contains("'many'"), cells.getMessage());
    }
}
