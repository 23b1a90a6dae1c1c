package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.core.EntryView;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.MapService;
import com.hazelcast.map.impl.recordstore.RecordStore;
import com.hazelcast.spi.impl.NodeEngine;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.store.StepRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Entries are written without a per-entry TTL, and each member sweeps the partitions it owns for states that no
 * longer matter ({@link ExpirySweep}), on real members: an idle key's entry goes from its owner and from the backup
 * replica; after a member leaves and another joins, the new owners sweep what they now own; and a state stored past
 * its expiry (the sweep has not come by) decides exactly like an absent one, placement on an overflow cell included.
 */
final class HazelcastExpirySweepTest {
    /** Not a whole number of seconds: Hazelcast's expiry, were it still in play, would round it. */
    private static final LimitSpec SHORT = LimitSpec.fixedWindow(3, Duration.ofMillis(370));
    private static final LimiterOptions OPEN = LimiterOptions.builder().failureMode(FailureMode.ALLOW)
            .decisionTimeout(Duration.ofSeconds(30)).build();
    /** Generous: a busy machine may delay a round; nothing here measures how long a round takes. */
    private static final long DEADLINE_NANOS = Duration.ofSeconds(60).toNanos();

    private static Config member(String cluster, int[] ports, int index, String periodMillis) {
        Config config = HazelcastCoalescingTest.memberConfig(cluster, ports, index);
        config.setProperty(ExpirySweep.PERIOD_PROPERTY, periodMillis);
        return config;
    }

    @Test
    void idleKey_isWrittenWithoutTtl_andSweptFromItsOwnerAndItsBackup() {
        String cluster = "sweep-idle-" + UUID.randomUUID();
        int[] ports = FreePorts.take(2);
        HazelcastInstance owner = Hazelcast.newHazelcastInstance(member(cluster, ports, 0, "400"));
        HazelcastInstance backup = Hazelcast.newHazelcastInstance(member(cluster, ports, 1, "400"));
        try {
            await(() -> owner.getPartitionService().isClusterSafe(), "the backups are assigned");
            IMap<String, long[]> map = owner.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            List<String> keys = new ArrayList<>();
            for (String key : ownedBy(owner, "idle", 3)) {
                decide(map, key, SHORT);
                keys.add(key);
                EntryView<String, long[]> view = map.getEntryView(key);
                assertNotNull(view, key);
                assertEquals(Long.MAX_VALUE, view.getExpirationTime(), "no per-entry TTL: " + view);
                assertTrue(hasBackupRecord(backup, key), "the backup holds " + key);
            }
            await(() -> keys.stream().noneMatch(map::containsKey), "the owner's entries are swept");
            await(() -> keys.stream().noneMatch(k -> hasBackupRecord(backup, k)), "the backups are removed too");
            assertTrue(ExpirySweep.registry(owner.getUserContext()).partitionsSwept.sum() > 0);
        } finally {
            owner.getLifecycleService().terminate();
            backup.getLifecycleService().terminate();
        }
    }

    @Test
    void afterAMemberLeavesAndAnotherJoins_theNewOwnersSweep() {
        String cluster = "sweep-migration-" + UUID.randomUUID();
        int[] ports = FreePorts.take(3);
        HazelcastInstance leaving = Hazelcast.newHazelcastInstance(member(cluster, ports, 0, "400"));
        HazelcastInstance staying = Hazelcast.newHazelcastInstance(member(cluster, ports, 1, "400"));
        HazelcastInstance joining = null;
        try {
            await(() -> leaving.getPartitionService().isClusterSafe(), "the backups are assigned");
            // Idle keys decided on the member that leaves before its sweep comes by: their backups are promoted.
            IMap<String, long[]> onLeaving = leaving.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            List<String> promoted = ownedBy(leaving, "promoted", 4);
            for (String key : promoted) {
                decide(onLeaving, key, LimitSpec.fixedWindow(3, Duration.ofMillis(1_370)));
            }
            leaving.getLifecycleService().terminate();
            IMap<String, long[]> onStaying = staying.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            assertTrue(promoted.stream().allMatch(onStaying::containsKey), "the promoted backups hold the keys");
            await(() -> promoted.stream().noneMatch(onStaying::containsKey), "the member that now owns them sweeps");

            // A member joins: partitions move to it, and it sweeps the keys it took over and the keys it decides.
            List<String> longer = ownedBy(staying, "migrated", 40);
            for (String key : longer) {
                decide(onStaying, key, LimitSpec.fixedWindow(3, Duration.ofMillis(2_370)));
            }
            joining = Hazelcast.newHazelcastInstance(member(cluster, ports, 2, "400"));
            HazelcastInstance joined = joining;
            await(() -> joined.getPartitionService().isClusterSafe() && longer.stream().anyMatch(k -> joined
                    .getPartitionService().getPartition(k).getOwner().localMember()), "partitions move to the new member");
            IMap<String, long[]> onJoined = joined.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            List<String> fresh = ownedBy(joined, "joined", 3);
            for (String key : fresh) {
                decide(onJoined, key, SHORT);
            }
            await(() -> longer.stream().noneMatch(onJoined::containsKey) && fresh.stream().noneMatch(onJoined::containsKey),
                    "every key swept by whichever member owns it now");
            assertTrue(ExpirySweep.registry(joined.getUserContext()).partitionsSwept.sum() > 0);
        } finally {
            staying.getLifecycleService().terminate();
            if (joining != null) {
                joining.getLifecycleService().terminate();
            }
        }
    }

    /**
     * A member that does not sweep (a Sluice that still writes TTLs, as it announces no sweep) is in the cluster: the
     * sweeping member stops sweeping and writes TTLs again, so nothing is left to a sweep that cannot run everywhere.
     */
    @Test
    void aMemberThatDoesNotSweep_turnsTheSweepOff_andWritesGetTheirTtlAgain() {
        String cluster = "sweep-mixed-" + UUID.randomUUID();
        int[] ports = FreePorts.take(2);
        HazelcastInstance sweeping = Hazelcast.newHazelcastInstance(member(cluster, ports, 0, "200"));
        Config older = member(cluster, ports, 1, "200");
        older.getMemberAttributeConfig().removeAttribute(ExpirySweep.ATTRIBUTE);
        HazelcastInstance notSweeping = Hazelcast.newHazelcastInstance(older);
        try {
            ExpirySweep.Registry registry = ExpirySweep.registry(sweeping.getUserContext());
            await(() -> !registry.active, "the sweeping member sees a member that does not sweep");
            IMap<String, long[]> map = sweeping.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            String key = ownedBy(sweeping, "mixed", 1).get(0);
            decide(map, key, LimitSpec.fixedWindow(3, Duration.ofMinutes(10)));
            EntryView<String, long[]> view = map.getEntryView(key);
            assertTrue(view.getExpirationTime() < Long.MAX_VALUE, "written with a TTL: " + view);
            notSweeping.getLifecycleService().terminate();
            await(() -> registry.active, "alone, the member sweeps again");
            // The next write clears the TTL the mixed cluster gave: kept, it would end the entry before its state.
            Verdict second = decide(map, key, LimitSpec.fixedWindow(3, Duration.ofMinutes(10)));
            assertEquals(1, second.remaining(), "the same state, both decisions in it");
            EntryView<String, long[]> rewritten = map.getEntryView(key);
            assertEquals(Long.MAX_VALUE, rewritten.getExpirationTime(), "the TTL cleared: " + rewritten);
        } finally {
            sweeping.getLifecycleService().terminate();
            notSweeping.getLifecycleService().terminate();
        }
    }

    /**
     * The member's exact share is full and its clock stands still, so nothing but the state's expiry changes: a key
     * whose own state has expired (still stored: the sweep's round is an hour) goes to the overflow cell exactly like
     * a key that never had state, and is read as the cell; a state of its own would have been a fresh budget.
     */
    @Test
    void expiredStoredState_isPlacedAndReadLikeNoState() {
        String cluster = "sweep-placement-" + UUID.randomUUID();
        int[] ports = FreePorts.take(1);
        ManualClock clock = new ManualClock();
        Config config = member(cluster, ports, 0, "3600000");
        config.getUserContext().put(SluiceHazelcast.CLOCK_KEY, clock);
        SluiceHazelcast.configure(config, SluiceHazelcast.DEFAULT_MAP_NAME, Capacity.maxKeys(200).withOverflowCells(1));
        HazelcastInstance m = Hazelcast.newHazelcastInstance(config);
        try (RateLimiters limiters = HazelcastRateLimiters.create(m)) {
            LimitSpec spec = LimitSpec.fixedWindow(5, Duration.ofMillis(1_370));
            IMap<String, long[]> map = m.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            String idle = Keys.partitionKey("sluice", "p", "idle");
            Verdict own = decide(map, idle, spec);
            assertTrue(own.granted() && !Overflow.isCellToken(own.token()), "a state of its own while there is room");

            PartitionedRateLimiter<String> fill = limiters.partitioned("fill", LimitSpec.fixedWindow(1, Duration.ofDays(3)),
                    OPEN);
            for (int i = 0; i < Capacity.exactUnits(Capacity.Policy.SHARE_OVERFLOW_CELLS, 200); i++) {
                assertTrue(fill.tryAcquire("f" + i, 1).isAcquired());
            }
            clock.advance(Duration.ofSeconds(3));
            long[] stored = map.get(idle);
            assertTrue(stored != null && Algorithms.isExpired(SluiceHazelcast.stateOf(stored), clock.millis()),
                    "the expired state is still stored");

            String absent = Keys.partitionKey("sluice", "p", sameCellId(m, "p", "idle"));
            Verdict onCell = decide(map, absent, spec);
            assertTrue(onCell.granted() && Overflow.isCellToken(onCell.token()), "a key without state goes to the cell");
            assertEquals(4, onCell.remaining());
            Verdict expired = decide(map, idle, spec);
            assertTrue(expired.granted() && Overflow.isCellToken(expired.token()),
                    "the key with an expired state goes to the cell too: " + expired);
            assertEquals(3, expired.remaining(), "the same cell, not a fresh budget of its own");

            KeyState read = limiters.partitioned("p", spec, OPEN).inspect("idle");
            assertTrue(read.onOverflowCell() && !read.ownState(), read.toString());
            assertEquals(3, read.remaining());
        } finally {
            m.getLifecycleService().terminate();
        }
    }

    private static Verdict decide(IMap<String, long[]> map, String key, LimitSpec spec) {
        BatchResult result = map.executeOnKey(key, new StepProcessor(SluiceHazelcast.DEFAULT_MAP_NAME,
                new StepRequest(key, spec, Op.ACQUIRE, 1, 0, Durability.REPLICATED)));
        return result.verdict(0);
    }

    private static void await(BooleanSupplier condition, String what) {
        long start = System.nanoTime();
        while (!condition.getAsBoolean()) {
            assertFalse(System.nanoTime() - start > DEADLINE_NANOS, "not within the deadline: " + what);
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** {@code n} keys of the partitioned limiter {@code policy} whose partitions {@code owner} owns. */
    private static List<String> ownedBy(HazelcastInstance owner, String policy, int n) {
        List<String> keys = new ArrayList<>();
        for (long i = 0; keys.size() < n; i++) {
            String key = Keys.partitionKey("sluice", policy, "id-" + i);
            if (owner.getPartitionService().getPartition(key).getOwner().localMember()) {
                keys.add(key);
            }
        }
        return keys;
    }

    /** Another id of {@code policy} whose key is in the same partition as {@code id}'s. */
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

    /** Whether {@code member}'s replica of {@code key}'s partition holds a record of it (read as a test may). */
    private static boolean hasBackupRecord(HazelcastInstance member, String key) {
        NodeEngine engine = ((HazelcastInstanceProxy) member).getOriginal().node.getNodeEngine();
        Data dataKey = engine.getSerializationService().toData(key);
        int partition = engine.getPartitionService().getPartitionId(dataKey);
        MapService service = engine.getService(MapService.SERVICE_NAME);
        RecordStore<?> store = service.getMapServiceContext().getPartitionContainer(partition)
                .getExistingRecordStore(SluiceHazelcast.DEFAULT_MAP_NAME);
        return store != null && store.getRecord(dataKey) != null;
    }
}
