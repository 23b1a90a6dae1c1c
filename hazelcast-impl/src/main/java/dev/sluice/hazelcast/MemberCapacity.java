package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.instance.impl.HazelcastInstanceImpl;
import com.hazelcast.instance.impl.HazelcastInstanceProxy;
import com.hazelcast.internal.util.Clock;
import com.hazelcast.map.impl.operation.MapOperation;
import com.hazelcast.map.impl.recordstore.RecordStore;
import com.hazelcast.spi.impl.NodeEngineImpl;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.CapacityExceededException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The maps of a member that refuse new keys at their bound ({@link Capacity.Policy#REFUSE_NEW_KEYS}), kept in
 * the member's user context under {@link SluiceHazelcast#CAPACITY_KEY} by {@link SluiceHazelcast#configure}.
 * Maps that evict at their bound are not here: Hazelcast's own eviction bounds them.
 *
 * <p>A processor asks {@link #checkRoom} only when it is about to store state for a key that has none. The
 * check is Hazelcast's own {@code PER_NODE} rule ({@code EvictionChecker}): the key's partition may hold
 * {@code maxKeys × members / partitions} entries. It reads the partition's record store through the operation
 * running on this partition thread, which Hazelcast 5.7 publishes but does not expose as API; a member where
 * that is not possible refuses every decision it cannot check, with an {@link IllegalStateException} saying
 * so, rather than storing past its bound. A full partition first drops its expired entries (at most once per
 * {@value #EXPIRED_SWEEP_MILLIS} ms per partition), then refuses.
 */
final class MemberCapacity {
    static final long EXPIRED_SWEEP_MILLIS = 100;

    private final Map<String, Long> maxKeysByMap = new ConcurrentHashMap<>();
    private volatile AtomicLongArray nextSweep;

    /** The registry of a member config, created on first use. */
    static MemberCapacity of(Map<String, Object> userContext) {
        Object existing = userContext.computeIfAbsent(SluiceHazelcast.CAPACITY_KEY, k -> new MemberCapacity());
        if (!(existing instanceof MemberCapacity capacity)) {
            throw new IllegalStateException("the user context entry " + SluiceHazelcast.CAPACITY_KEY + " is a "
                    + existing.getClass().getName() + ", not Sluice's capacity registry");
        }
        return capacity;
    }

    void refuseAt(String mapName, long maxKeys) {
        maxKeysByMap.put(mapName, maxKeys);
    }

    void evictIn(String mapName) {
        maxKeysByMap.remove(mapName);
    }

    /** The bound of a map that refuses new keys, or -1 when it has none. */
    long refusalBound(String mapName) {
        Long max = maxKeysByMap.get(mapName);
        return max == null ? -1 : max;
    }

    /**
     * Throws when the map the current operation runs on refuses new keys and the key's partition is full.
     * {@code instance} is the member running the processor; {@code key} is the entry's key.
     *
     * @throws CapacityExceededException when the partition holds its share of the bound
     */
    static void checkRoom(HazelcastInstance instance, Object key) {
        if (instance == null) {
            return; // a processor run outside a member (unit tests): nothing to bound
        }
        Object registry = instance.getUserContext().get(SluiceHazelcast.CAPACITY_KEY);
        if (!(registry instanceof MemberCapacity capacity) || capacity.maxKeysByMap.isEmpty()) {
            return;
        }
        capacity.check(instance, key);
    }

    private void check(HazelcastInstance instance, Object key) {
        int partition = instance.getPartitionService().getPartition(key).getPartitionId();
        MapOperation operation;
        NodeEngineImpl engine;
        try {
            engine = nodeEngine(instance);
            Object task = engine.getOperationService().getOperationExecutor()
                    .getPartitionOperationRunners()[partition].currentTask();
            operation = task instanceof MapOperation op ? op : null;
        } catch (RuntimeException | LinkageError e) {
            throw unsupported(e.toString());
        }
        if (operation == null) {
            throw unsupported("no map operation runs on partition " + partition);
        }
        long maxKeys = refusalBound(operation.getName());
        if (maxKeys < 0) {
            return;
        }
        RecordStore<?> store = operation.getRecordStore();
        int members = Math.max(1, instance.getCluster().getMembers().size());
        double perPartition = Math.max(1, (double) maxKeys * members / engine.getPartitionService().getPartitionCount());
        if (store.size() < perPartition) {
            return;
        }
        long now = Clock.currentTimeMillis(); // Hazelcast's expiry clock
        AtomicLongArray sweeps = sweeps(engine.getPartitionService().getPartitionCount());
        long due = sweeps.get(partition);
        if (now >= due && sweeps.compareAndSet(partition, due, now + EXPIRED_SWEEP_MILLIS)) {
            store.evictExpiredEntries(100, now, false);
            if (store.size() < perPartition) {
                return;
            }
        }
        throw new CapacityExceededException("map '" + operation.getName() + "' holds its bound of " + maxKeys
                + " keys per member (" + (long) perPartition + " in partition " + partition + "); a key without state"
                + " is refused until room frees up");
    }

    private AtomicLongArray sweeps(int partitions) {
        AtomicLongArray s = nextSweep;
        if (s == null) {
            synchronized (this) {
                s = nextSweep;
                if (s == null) {
                    nextSweep = s = new AtomicLongArray(partitions);
                }
            }
        }
        return s;
    }

    private static NodeEngineImpl nodeEngine(HazelcastInstance instance) {
        HazelcastInstanceImpl impl = instance instanceof HazelcastInstanceProxy proxy ? proxy.getOriginal()
                : (HazelcastInstanceImpl) instance;
        return impl.node.getNodeEngine();
    }

    private static IllegalStateException unsupported(String why) {
        return new IllegalStateException("this member cannot check the bound of a map that refuses new keys at"
                + " capacity (" + why + "); it needs Hazelcast 5.7's partition operation runners. Use"
                + " Capacity.Policy.EVICT_LEAST_RECENTLY_USED on this Hazelcast version");
    }
}
