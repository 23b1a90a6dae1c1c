package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.store.StepRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Overflow cells on real members: which state decides a key is a function of the key, its limiter and the
 * cluster's configuration, and of the data in the key's partition, never of one member's bound, heap or timers.
 * Each test is a defect that a member-local rule had (named in its Javadoc), on members of its own, on free ports.
 */
final class HazelcastOverflowCellsTest {
    private static final LimiterOptions OPEN = LimiterOptions.builder().failureMode(FailureMode.ALLOW)
            .decisionTimeout(Duration.ofSeconds(30)).build();

    /**
     * Members with different bounds (1,000 and 1,500 keys): 600 keys owned by the first spend
     * {@code slidingLog(5, 10 min)} on their cells while it is full; it is terminated and the second, with room,
     * takes over. Each key's grants over the whole run stay within its limit of 5: its cell, backed up in its own
     * partition, still decides it. (A member-local table and hint gave most keys a fresh budget here.)
     *
     * <p>The keys are spent once the cluster is safe: the first member assigns the partitions alone, so the
     * second's joining starts migrations, and what a member acknowledged while its partitions' backups were still
     * being copied is lost with it (Hazelcast's own guarantee, whatever a limiter does); on a loaded machine that
     * window once lasted past the kill and gave the keys first spent (each on its own state) a fresh budget.
     */
    @Test
    void failoverToAMemberWithRoom_keysStayOnTheirCells() throws InterruptedException {
        String cluster = "overflow-failover-" + UUID.randomUUID();
        int[] ports = FreePorts.take(2);
        Capacity small = Capacity.maxKeys(1_000).withOverflowCells(71);
        Capacity large = Capacity.maxKeys(1_500).withOverflowCells(71);
        HazelcastInstance a = Hazelcast.newHazelcastInstance(member(cluster, ports, 0, small, null));
        HazelcastInstance b = Hazelcast.newHazelcastInstance(member(cluster, ports, 1, large, null));
        HazelcastInstance client = HazelcastClient.newHazelcastClient(client(cluster, ports));
        HazelcastCoalescingTest.awaitClusterSafe(a);
        try (RateLimiters limiters = HazelcastRateLimiters.create(client)) {
            LimitSpec log = LimitSpec.slidingLog(5, Duration.ofMinutes(10));
            PartitionedRateLimiter<String> fill = limiters.partitioned("fill", LimitSpec.fixedWindow(1,
                    Duration.ofMinutes(30)), OPEN);
            PartitionedRateLimiter<String> login = limiters.partitioned("login", log, OPEN);
            long exactShare = Capacity.exactUnits(Capacity.Policy.SHARE_OVERFLOW_CELLS, 1_000);
            List<String> filler = ownedBy(a, "fill", (int) exactShare);
            for (String id : filler) {
                assertTrue(fill.tryAcquire(id, 1).isAcquired());
            }
            List<String> victims = ownedBy(a, "login", 600);
            Map<String, Integer> grants = new HashMap<>();
            for (String id : victims) {
                for (int i = 0; i < 6; i++) {
                    Lease lease = login.tryAcquire(id, 1);
                    assertFalse(lease.isDegraded(), "decided by the store: " + lease);
                    grants.merge(id, lease.isAcquired() ? 1 : 0, Integer::sum);
                }
            }
            int onCells = (int) a.<String, long[]>getMap("sluice").localKeySet().stream().filter(Overflow::isCellKey).count();
            assertTrue(onCells > 0, "the victims were decided on cells");
            assertTrue(a.getPartitionService().isClusterSafe(), "every backup in sync before the kill");
            a.getLifecycleService().terminate();
            for (String id : victims) {
                for (int i = 0; i < 5; i++) {
                    grants.merge(id, login.tryAcquire(id, 1).isAcquired() ? 1 : 0, Integer::sum);
                }
            }
            long over = grants.values().stream().filter(n -> n > 5).count();
            assertEquals(0, over, "keys granted more than their limit of 5 across the failover: " + grants);
        } finally {
            client.shutdown();
            b.getLifecycleService().terminate();
            a.getLifecycleService().terminate();
        }
    }

    /** Members configured with different cell tables cannot decide the same keys: the second is refused, named. */
    @Test
    void membersWithDifferentCellTables_areRefused() {
        String cluster = "overflow-table-" + UUID.randomUUID();
        int[] ports = FreePorts.take(2);
        HazelcastInstance a = Hazelcast.newHazelcastInstance(member(cluster, ports, 0,
                Capacity.maxKeys(1_000).withOverflowCells(100), null));
        HazelcastInstance b = Hazelcast.newHazelcastInstance(member(cluster, ports, 1,
                Capacity.maxKeys(1_000).withOverflowCells(200), null));
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> HazelcastRateLimiters.create(b));
            assertTrue(e.getMessage().contains("200") && e.getMessage().contains("100")
                    && e.getMessage().contains("withOverflowCells"), e.getMessage());
        } finally {
            b.getLifecycleService().terminate();
            a.getLifecycleService().terminate();
        }
    }

    /**
     * A composite whose components' lifetimes differ ({@code fixedWindow(10, 1 min)} and
     * {@code gcra(1000 a day, burst 1000)}), spending on its cell 10 a minute for 50 minutes, then pausing 15
     * minutes (while the member's room comes back), then going on until the day's budget is spent: every grant is
     * one the key's own exact history allows. (A hint that lived as long as
     * the smaller component's state lapsed in the pause and handed the key a fresh day.)
     */
    @Test
    void compositeOnACell_staysUntilTheCellReadsFull() {
        String cluster = "overflow-composite-" + UUID.randomUUID();
        int[] ports = FreePorts.take(1);
        ManualClock clock = new ManualClock();
        HazelcastInstance m = Hazelcast.newHazelcastInstance(member(cluster, ports, 0,
                Capacity.maxKeys(200).withOverflowCells(71), clock));
        try (RateLimiters limiters = HazelcastRateLimiters.create(m)) {
            LimitSpec spec = LimitSpec.allOf(LimitSpec.fixedWindow(10, Duration.ofMinutes(1)),
                    LimitSpec.gcra(1000, Duration.ofDays(1), 1000));
            fillExactShare(limiters, 200);
            PartitionedRateLimiter<String> api = limiters.partitioned("api", spec, OPEN);
            ExactHistory history = new ExactHistory(spec);
            int granted = 0;
            for (int minute = 0; minute < 175; minute++) {
                if (minute == 50) {
                    emptyFill(m, 200); // room comes back, as when the filling keys' states expire
                }
                if (minute >= 50 && minute < 65) {
                    clock.advance(Duration.ofMinutes(1));
                    continue;
                }
                for (int i = 0; i < 11; i++) {
                    Lease lease = api.tryAcquire("attacker", 1);
                    assertFalse(lease.isDegraded(), lease.toString());
                    history.record(lease.isAcquired(), clock.millis());
                    granted += lease.isAcquired() ? 1 : 0;
                }
                clock.advance(Duration.ofMinutes(1));
            }
            assertTrue(granted > 0 && limiters.storeStatistics().overflowDecisions() > 0,
                    "the key was decided on its cell: " + limiters.storeStatistics());
            assertEquals(0, history.violations().size(), "grants its own history does not allow, the first: "
                    + history.violations().subList(0, Math.min(5, history.violations().size())));
        } finally {
            m.getLifecycleService().terminate();
        }
    }

    /**
     * Two plain limiters under one prefix at the bound, {@code export} at 5 a day and {@code ping} at 1,000 a
     * second: ping's short windows never wipe export's count. (Cells grouped by key prefix were shared by every
     * plain limiter, and export granted 30 in a day.)
     */
    @Test
    void plainLimitersUnderOnePrefix_neverShareACell() {
        String cluster = "overflow-plain-" + UUID.randomUUID();
        int[] ports = FreePorts.take(1);
        ManualClock clock = new ManualClock();
        HazelcastInstance m = Hazelcast.newHazelcastInstance(member(cluster, ports, 0,
                Capacity.maxKeys(200).withOverflowCells(1), clock));
        try (RateLimiters limiters = HazelcastRateLimiters.create(m)) {
            fillExactShare(limiters, 200);
            RateLimiter export = limiters.limiter("export", LimitSpec.fixedWindow(5, Duration.ofDays(1)), OPEN);
            RateLimiter ping = limiters.limiter("ping-675", LimitSpec.fixedWindow(1000, Duration.ofSeconds(1)), OPEN);
            int exported = 0;
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < 10; i++) {
                    exported += export.tryAcquire(1).isAcquired() ? 1 : 0;
                }
                assertTrue(ping.tryAcquire(1).isAcquired());
                clock.advance(Duration.ofMillis(1_100));
            }
            assertEquals(5, exported, "export's limit of 5 a day");
        } finally {
            m.getLifecycleService().terminate();
        }
    }

    /**
     * A batch of a refund of an exact grant (its state gone, as after an ephemeral failover) and an acquisition,
     * on a member whose exact share is full: the acquisition goes to the cell, the refund gives nothing to it.
     * (The batch's redirect sent the refund to the cell, and another key on that cell got 6 of 5.)
     */
    @Test
    void refundOfAnExactGrantInABatch_neverReachesTheCell() {
        String cluster = "overflow-refund-" + UUID.randomUUID();
        int[] ports = FreePorts.take(1);
        ManualClock clock = new ManualClock();
        HazelcastInstance m = Hazelcast.newHazelcastInstance(member(cluster, ports, 0,
                Capacity.maxKeys(200).withOverflowCells(1), clock));
        try (RateLimiters limiters = HazelcastRateLimiters.create(m)) {
            LimitSpec spec = LimitSpec.fixedWindow(5, Duration.ofHours(1));
            String key = Keys.partitionKey("sluice", "p", "gone");
            IMap<String, long[]> map = m.getMap("sluice");
            BatchResult exact = map.executeOnKey(key, new StepProcessor("sluice",
                    new StepRequest(key, spec, Op.ACQUIRE, 1, 0, Durability.REPLICATED)));
            Verdict grant = exact.verdict(0);
            assertTrue(grant.granted() && !Overflow.isCellToken(grant.token()));
            map.delete(key); // its state is gone
            fillExactShare(limiters, 200);
            long refundWord = Algorithms.refundPermits(1, Algorithms.newRefundId());
            BatchResult batch = map.executeOnKey(key, new StepProcessor("sluice", List.of(
                    new StepRequest(key, spec, Op.REFUND, refundWord, grant.token(), Durability.REPLICATED),
                    new StepRequest(key, spec, Op.ACQUIRE, 1, 0, Durability.REPLICATED))));
            assertFalse(batch.verdict(0).granted(), "nothing given back: the key holds nothing");
            assertTrue(batch.verdict(1).granted() && Overflow.isCellToken(batch.verdict(1).token()), "on the cell");
            PartitionedRateLimiter<String> p = limiters.partitioned("p", spec, OPEN);
            String neighbour = sameCellId(m, "p", "gone");
            int granted = 0;
            for (int i = 0; i < 10; i++) {
                granted += p.tryAcquire(neighbour, 1).isAcquired() ? 1 : 0;
            }
            assertEquals(4, granted, "the cell's 5, one taken by the batch");
        } finally {
            m.getLifecycleService().terminate();
        }
    }

    /**
     * Eight policies flood new keys at once: the member holds no more entries than its bound, cells included, and
     * no flood key is left undecided. (Each policy's table was up to half the bound on top of it: five times the
     * bound.)
     */
    @Test
    void manyPoliciesFlooding_entriesStayWithinTheBound() {
        String cluster = "overflow-bound-" + UUID.randomUUID();
        int[] ports = FreePorts.take(1);
        int bound = 710;
        HazelcastInstance m = Hazelcast.newHazelcastInstance(member(cluster, ports, 0,
                Capacity.maxKeys(bound).withOverflowCells(71), null));
        try (RateLimiters limiters = HazelcastRateLimiters.create(m)) {
            List<PartitionedRateLimiter<String>> policies = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                policies.add(limiters.partitioned("flood-" + i, LimitSpec.tokenBucket(10, 1, Duration.ofHours(1)),
                        OPEN));
            }
            for (int i = 0; i < 4 * bound; i++) {
                for (PartitionedRateLimiter<String> p : policies) {
                    p.tryAcquire("k" + i, 1);
                }
            }
            int partitionThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
            int held = m.getMap("sluice").size();
            assertTrue(held <= bound + partitionThreads, "held " + held + " entries, cells included, bound " + bound);
            long cells = m.<String, long[]>getMap("sluice").keySet().stream().filter(Overflow::isCellKey).count();
            assertTrue(cells > 0, "the floods went to cells");
            assertEquals(cells, limiters.storeStatistics().overflowCells(), "the member counts its cells");
        } finally {
            m.getLifecycleService().terminate();
        }
    }

    /** A probe of a new key at a bound that refuses new keys answers what an acquisition would: a degraded deny. */
    @Test
    void probeAtTheBound_answersAsAnAcquisition() {
        String cluster = "overflow-probe-" + UUID.randomUUID();
        int[] ports = FreePorts.take(1);
        HazelcastInstance m = Hazelcast.newHazelcastInstance(member(cluster, ports, 0,
                Capacity.maxKeys(100).refuseNewKeys(), null));
        try (RateLimiters limiters = HazelcastRateLimiters.create(m)) {
            PartitionedRateLimiter<String> p = limiters.partitioned("p", LimitSpec.fixedWindow(5,
                    Duration.ofHours(1)), OPEN);
            for (int i = 0; i < 100; i++) {
                assertTrue(p.tryAcquire("k" + i, 1).isAcquired());
            }
            Lease probe = p.tryAcquire("new", 0);
            Lease acquisition = p.tryAcquire("new", 1);
            assertTrue(acquisition.isDegraded() && !acquisition.isAcquired(), acquisition.toString());
            assertEquals(acquisition.isAcquired(), probe.isAcquired(), probe.toString());
            assertTrue(probe.isDegraded(), probe.toString());
        } finally {
            m.getLifecycleService().terminate();
        }
    }

    /**
     * A key without state decided on its cell is read as the cell (its remaining, marked as a cell, no state of its
     * own), and a reset of it, full or partial, leaves the shared cell as it is: resetting a cell would hand its
     * budget to every key that lands on it.
     */
    @Test
    void keyOnACell_isReadAsTheCell_andAResetNeverResetsTheCell() {
        String cluster = "overflow-inspect-" + UUID.randomUUID();
        int[] ports = FreePorts.take(1);
        HazelcastInstance m = Hazelcast.newHazelcastInstance(member(cluster, ports, 0,
                Capacity.maxKeys(200).withOverflowCells(71), new ManualClock()));
        try (RateLimiters limiters = HazelcastRateLimiters.create(m)) {
            fillExactShare(limiters, 200);
            PartitionedRateLimiter<String> login = limiters.partitioned("login",
                    LimitSpec.fixedWindow(5, Duration.ofHours(1)), OPEN);
            String x = "customer-4711";
            String y = sameCellId(m, "login", x);
            assertTrue(login.tryAcquire(x, 2).isAcquired());
            assertTrue(login.tryAcquire(y, 1).isAcquired());

            dev.sluice.limiter.KeyState read = login.inspect(x);
            assertTrue(read.onOverflowCell(), read.toString());
            assertFalse(read.ownState());
            assertEquals(2, read.remaining(), "the cell's remaining (5 - 2 - 1), not a fresh budget");

            assertEquals(2, login.reset(x).remaining(), "the cell is not reset");
            assertTrue(login.reset(x).onOverflowCell());
            assertEquals(2, login.reset(y, 0).remaining(), "nor set to a given remaining");
            assertEquals(2, login.inspect(y).remaining());
            assertTrue(login.tryAcquire(y, 2).isAcquired());
            assertFalse(login.tryAcquire(x, 1).isAcquired(), "the cell's budget is spent, reset or not");
        } finally {
            m.getLifecycleService().terminate();
        }
    }

    /** Fills a member's exact share of {@code bound} with keys of a spec that never overflows again. */
    private static void fillExactShare(RateLimiters limiters, int bound) {
        PartitionedRateLimiter<String> fill = limiters.partitioned("fill", LimitSpec.fixedWindow(1, Duration.ofDays(3)),
                OPEN);
        for (int i = 0; i < Capacity.exactUnits(Capacity.Policy.SHARE_OVERFLOW_CELLS, bound); i++) {
            assertTrue(fill.tryAcquire("f" + i, 1).isAcquired());
        }
    }

    /** Removes what {@link #fillExactShare} stored. */
    private static void emptyFill(HazelcastInstance m, int bound) {
        for (int i = 0; i < Capacity.exactUnits(Capacity.Policy.SHARE_OVERFLOW_CELLS, bound); i++) {
            m.getMap("sluice").delete(Keys.partitionKey("sluice", "fill", "f" + i));
        }
    }

    /** Another id of {@code policy} whose key is in the same partition as {@code id}'s (one cell a partition). */
    private static String sameCellId(HazelcastInstance m, String policy, String id) {
        int partition = m.getPartitionService().getPartition(Keys.partitionKey("sluice", policy, id)).getPartitionId();
        for (int n = 0; ; n++) {
            String other = id + "-" + n;
            if (m.getPartitionService().getPartition(Keys.partitionKey("sluice", policy, other)).getPartitionId()
                    == partition) {
                return other;
            }
        }
    }

    /** {@code n} ids of {@code policy} whose keys {@code owner} owns. */
    private static List<String> ownedBy(HazelcastInstance owner, String policy, int n) {
        List<String> ids = new ArrayList<>();
        for (long i = 0; ids.size() < n; i++) {
            String id = policy + "-" + i;
            if (owner.getPartitionService().getPartition(Keys.partitionKey("sluice", policy, id)).getOwner()
                    .localMember()) {
                ids.add(id);
            }
        }
        return ids;
    }

    /** The shared test member config, bounded by {@code capacity}, reading {@code clock} when one is given. */
    private static Config member(String cluster, int[] ports, int index, Capacity capacity, ManualClock clock) {
        Config config = HazelcastCoalescingTest.memberConfig(cluster, ports, index);
        if (clock != null) {
            config.getUserContext().put(SluiceHazelcast.CLOCK_KEY, clock);
        }
        return SluiceHazelcast.configure(config, SluiceHazelcast.DEFAULT_MAP_NAME, capacity);
    }

    private static ClientConfig client(String cluster, int[] ports) {
        return HazelcastCoalescingTest.clientConfig(cluster, FreePorts.addresses(ports).toArray(String[]::new));
    }

    /**
     * One key's exact history: each grant, in order, must be one the key's own state (built from its earlier
     * grants alone) allows at the decision's time.
     */
    static final class ExactHistory {
        private final LimitSpec spec;
        private long[] state;
        private final List<String> violations = new ArrayList<>();

        ExactHistory(LimitSpec spec) {
            this.spec = spec;
        }

        void record(boolean granted, long now) {
            if (!granted) {
                return;
            }
            Verdict v = Algorithms.acquire(spec, state, now, 1);
            if (!v.granted()) {
                violations.add("a grant at " + now);
                return;
            }
            state = v.ttlMillis() > 0 ? v.state() : null;
        }

        List<String> violations() {
            return violations;
        }
    }
}
