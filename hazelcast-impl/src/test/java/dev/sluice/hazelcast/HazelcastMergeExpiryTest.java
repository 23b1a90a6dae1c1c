package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.map.IMap;
import com.hazelcast.map.impl.MapService;
import com.hazelcast.map.impl.MapServiceContext;
import com.hazelcast.map.impl.recordstore.RecordStore;
import com.hazelcast.spi.impl.NodeEngine;
import com.hazelcast.spi.impl.merge.MapMergingEntryImpl;
import com.hazelcast.spi.merge.SplitBrainMergePolicy;
import com.hazelcast.spi.merge.SplitBrainMergeTypes.MapMergeTypes;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.StateMerge;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The entry a split-brain merge leaves behind lives as long as the merged state says, whichever value the
 * policy keeps. Each case runs Hazelcast's real merge: a {@code MergeOperation}, as the split-brain handler
 * of a merging member sends it, on real members (on free ports), through the real record store, with
 * the merging entry carrying the expiry its own side had given it.
 *
 * <p>Why it matters: for non-WAN merges Hazelcast copies the merging entry's expiration onto the record
 * after the policy returns ({@code DefaultRecordStore.merge} → {@code mergeRecordExpiration}, and the same
 * in {@code MergeOpSteps}), even when the existing value is kept. An entry that dies before its state
 * forgets the permits in it: a limit of 2 then grants a third.
 *
 * <p>Members run in this JVM, so their local clocks (entry expiry) and cluster time (state times) differ
 * only by the cluster's clock offset, a few milliseconds: {@link #CLOCK_TOLERANCE_MILLIS}.
 */
final class HazelcastMergeExpiryTest {
    private static final long CLOCK_TOLERANCE_MILLIS = 100;
    private static final LimitSpec TWO_LEASES = LimitSpec.concurrency(2, Duration.ofSeconds(60));
    private static final LimitSpec GCRA = LimitSpec.gcra(1, Duration.ofMinutes(1), 10);

    /** Where a merge runs: which map, and through which of Hazelcast's two merge code paths. */
    enum Target {
        /** {@code DefaultRecordStore.merge}; the merge's backup goes to the other member. */
        REPLICATED(SluiceHazelcast.DEFAULT_MAP_NAME),
        /** The ephemeral map: no backup. */
        EPHEMERAL(SluiceHazelcast.ephemeralMapName(SluiceHazelcast.DEFAULT_MAP_NAME)),
        /** The map with an asynchronous backup (which lands later, so only the owner's record is checked). */
        ASYNC_BACKUP(SluiceHazelcast.asyncBackupMapName(SluiceHazelcast.DEFAULT_MAP_NAME)),
        /** {@code MergeOpSteps}, which Hazelcast runs for offloaded operations (forced here). */
        STEPPED(SluiceHazelcast.DEFAULT_MAP_NAME);

        final String map;

        Target(String map) {
            this.map = map;
        }
    }

    private static HazelcastInstance first;
    private static HazelcastInstance second;
    private static HazelcastInstance stepped;
    private static int keys;

    @BeforeAll
    static void start() {
        int[] ports = FreePorts.take(3);
        first = Hazelcast.newHazelcastInstance(HazelcastCoalescingTest.memberConfig("sluice-merge-expiry", ports, 0));
        second = Hazelcast.newHazelcastInstance(HazelcastCoalescingTest.memberConfig("sluice-merge-expiry", ports, 1));
        Config config = HazelcastCoalescingTest.memberConfig("sluice-merge-expiry-stepped", new int[] {ports[2]}, 0);
        config.setProperty(MapServiceContext.PROP_FORCE_OFFLOAD_ALL_OPERATIONS, "true");
        stepped = Hazelcast.newHazelcastInstance(config);
        // An operation on every partition returns once the partitions are assigned, so owners are known.
        first.getMap(SluiceHazelcast.DEFAULT_MAP_NAME).size();
        stepped.getMap(SluiceHazelcast.DEFAULT_MAP_NAME).size();
    }

    @AfterAll
    static void stop() {
        for (HazelcastInstance member : new HazelcastInstance[] {first, second, stepped}) {
            if (member != null) {
                member.getLifecycleService().terminate();
            }
        }
    }

    /**
     * One lease per side: the merging side's lease was granted 30 s before the existing side's, so its
     * entry expires 30 s earlier. The union, a new value, must live until the later lease expires.
     */
    @ParameterizedTest
    @EnumSource(Target.class)
    void merge_unionOutlivesTheMergingEntry_entryLivesUntilTheLaterLease(Target target) throws Exception {
        long now = clusterTime(target);
        long[] merging = acquire(TWO_LEASES, null, now - 30_000, 0x2F3A1L);
        long[] existing = acquire(TWO_LEASES, null, now, 0x51CEL);
        check(target, "union", existing, merging, entryExpiry(merging));
    }

    /**
     * The existing side holds the merging side's lease and a later one, so the policy keeps the existing
     * value, and Hazelcast still copies the merging entry's (earlier) expiration onto the record.
     */
    @ParameterizedTest
    @EnumSource(Target.class)
    void merge_existingValueKept_entryLivesUntilItsLastLease(Target target) throws Exception {
        long now = clusterTime(target);
        long[] merging = acquire(TWO_LEASES, null, now - 30_000, 0x2F3A1L);
        long[] existing = acquire(TWO_LEASES, merging, now, 0x51CEL);
        assertTrue(StateMerge.merge(existing, merging) == existing, "the policy keeps the existing value");
        check(target, "existing", existing, merging, entryExpiry(merging));
    }

    /**
     * The merging value is kept; its entry expires 500 ms before its state, as a store that rounds expiry
     * down to whole seconds leaves it. The merged entry must not inherit that.
     */
    @ParameterizedTest
    @EnumSource(Target.class)
    void merge_mergingValueKept_entryLivesUntilItsStateExpires(Target target) throws Exception {
        long now = clusterTime(target);
        long[] existing = take(GCRA, now, 3);
        long[] merging = take(GCRA, now, 8);
        assertTrue(StateMerge.merge(existing, merging) == merging, "the policy keeps the merging value");
        check(target, "merging", existing, merging, Algorithms.expiresAt(merging) - 500);
    }

    /** No entry on the surviving side: the merging state is created with an expiry that covers it. */
    @ParameterizedTest
    @EnumSource(Target.class)
    void merge_noExistingEntry_entryLivesUntilItsStateExpires(Target target) throws Exception {
        long[] merging = take(GCRA, clusterTime(target), 8);
        check(target, "absent", null, merging, Algorithms.expiresAt(merging) - 500);
    }

    /**
     * Writes {@code existing} (if any) with the TTL a processor gives it, merges an entry holding
     * {@code merging} that expires at {@code mergingExpiry}, and checks the stored value (the policy's
     * choice, unchanged by the fix) and the expiry of the record and of its backup.
     */
    private static void check(Target target, String what, long[] existing, long[] merging, long mergingExpiry)
            throws Exception {
        HazelcastInstance owner = target == Target.STEPPED ? stepped : second;
        // The merge operation comes from another member when there is one, as in a real split brain: the
        // policy then travels serialized and is initialized on the owner.
        HazelcastInstance sender = target == Target.STEPPED ? stepped : first;
        IMap<String, long[]> map = owner.getMap(target.map);
        String key = keyOwnedBy(owner, what);
        if (existing != null) {
            long ttl = Algorithms.expiresAt(existing) - clusterTime(target) + 1_000;
            map.set(key, existing, ttl, TimeUnit.MILLISECONDS);
        }
        long[] expected = existing == null ? merging : StateMerge.merge(existing, merging);

        merge(sender, target.map, key, merging, mergingExpiry);

        assertArrayEquals(expected, SluiceHazelcast.stateOf(map.get(key)), "the merged value is the policy's choice");
        long expiresAt = Algorithms.expiresAt(expected);
        long expiration = map.getEntryView(key).getExpirationTime();
        assertTrue(expiration >= expiresAt - CLOCK_TOLERANCE_MILLIS, target + " " + what + ": the merged entry"
                + " expires at " + expiration + ", " + (expiresAt - expiration) + " ms before its state (" + expiresAt
                + "); the merging entry expired at " + mergingExpiry);
        if (target == Target.REPLICATED) {
            long backup = backupExpiration(sender, target.map, key);
            assertTrue(backup >= expiresAt - CLOCK_TOLERANCE_MILLIS, target + " " + what + ": the backup expires at "
                    + backup + ", " + (expiresAt - backup) + " ms before the state (" + expiresAt + ")");
        }
    }

    /** Runs Hazelcast's merge operation for one merging entry on the key's partition, as a merging member does. */
    private static void merge(HazelcastInstance sender, String mapName, String key, long[] state, long expiration)
            throws Exception {
        NodeEngine engine = nodeEngine(sender);
        SerializationService serialization = engine.getSerializationService();
        Data dataKey = serialization.toData(key);
        long written = expiration - Duration.ofSeconds(60).toMillis();
        // The fields MergingValueFactory copies from the merging side's record and its expiry metadata.
        MapMergingEntryImpl<Object, Object> entry = new MapMergingEntryImpl<>(serialization)
                .setKey(dataKey)
                .setValue(serialization.toData(state))
                .setCreationTime(written)
                .setLastUpdateTime(written)
                .setLastAccessTime(written)
                .setLastStoredTime(0)
                .setHits(0)
                .setVersion(1)
                .setTtl(expiration - written)
                .setMaxIdle(Long.MAX_VALUE)
                .setExpirationTime(expiration);
        MapService service = engine.getService(MapService.SERVICE_NAME);
        var operation = service.getMapServiceContext().getMapOperationProvider(mapName)
                .createMergeOperation(mapName, entry, mapPolicy(), false);
        int partition = engine.getPartitionService().getPartitionId(dataKey);
        engine.getOperationService().invokeOnPartition(MapService.SERVICE_NAME, operation, partition)
                .get(30, TimeUnit.SECONDS);
    }

    /** Sluice's policy, typed as a map's: Hazelcast's own provider hands it out as a raw type too. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static SplitBrainMergePolicy<Object, MapMergeTypes<Object, Object>, Object> mapPolicy() {
        return (SplitBrainMergePolicy) new SluiceMergePolicy();
    }

    /** The expiration of {@code key}'s backup record on {@code member} (which must hold the backup). */
    private static long backupExpiration(HazelcastInstance member, String mapName, String key) {
        NodeEngine engine = nodeEngine(member);
        Data dataKey = engine.getSerializationService().toData(key);
        int partition = engine.getPartitionService().getPartitionId(dataKey);
        MapService service = engine.getService(MapService.SERVICE_NAME);
        RecordStore<?> store = service.getMapServiceContext().getPartitionContainer(partition)
                .getExistingRecordStore(mapName);
        assertTrue(store != null && store.getRecord(dataKey) != null, "the backup of " + key + " is on " + member);
        return store.getExpirySystem().getExpiryMetadata(dataKey).getExpirationTime();
    }

    /** A fresh key whose partition {@code owner} owns (and, with two members, the other backs up). */
    private static String keyOwnedBy(HazelcastInstance owner, String what) {
        while (true) {
            String key = "sluice/merge-expiry-" + what + "-" + keys++;
            if (owner.getPartitionService().getPartition(key).getOwner().localMember()) {
                return key;
            }
        }
    }

    /** The expiration a processor's store gave the entry of a fresh state: its state's expiry, rounded down. */
    private static long entryExpiry(long[] state) {
        long expiresAt = Algorithms.expiresAt(state);
        return expiresAt - Math.floorMod(expiresAt, 1_000L);
    }

    private static long[] acquire(LimitSpec spec, long[] state, long now, long nonce) {
        var verdict = Algorithms.step(spec, state, now, Op.ACQUIRE, 1, nonce);
        assertTrue(verdict.granted(), "lease at " + now);
        return verdict.state();
    }

    private static long[] take(LimitSpec spec, long now, int permits) {
        var verdict = Algorithms.acquire(spec, null, now, permits);
        assertEquals(true, verdict.granted());
        return verdict.state();
    }

    private static long clusterTime(Target target) {
        return (target == Target.STEPPED ? stepped : second).getCluster().getClusterTime();
    }

    private static NodeEngine nodeEngine(HazelcastInstance member) {
        return ((HazelcastInstanceProxy) member).getOriginal().node.getNodeEngine();
    }
}
