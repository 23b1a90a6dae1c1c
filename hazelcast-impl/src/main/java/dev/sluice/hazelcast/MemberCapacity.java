package dev.sluice.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Overflow;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The bound of a member's Sluice maps that keep every state that still limits
 * ({@link Capacity.Policy#SHARE_OVERFLOW_CELLS}, {@link Capacity.Policy#REFUSE_NEW_KEYS}: Hazelcast's eviction off),
 * kept in the member's user context under {@link SluiceHazelcast#CAPACITY_KEY} by {@link SluiceHazelcast#configure}.
 * Maps that evict at their bound are not here: Hazelcast's own eviction bounds them.
 *
 * <p>A processor that runs an acquisition on a key without state asks {@link #placing} where it goes, and
 * {@link Overflow#place}, the rule every store shares, answers from two facts: the key's cell as stored now, and
 * the member's owned entries against its bound. The cell decides first: a live cell takes the key whatever room
 * the member has, so the bound (a member's own figure, which differs between members and after a failover) only
 * ever chooses between a new exact state and a cell whose budget is full, never between two states that hold
 * different spending.
 *
 * <p>The cell lives in the key's own partition ({@link #cellKeyOf}: the cell's key is chosen so that it hashes
 * there, {@link #cellKeyOf}), so the processor reads and writes it in the same operation, on the partition's thread
 * ({@link HazelcastInternals#partitionRecords}); it migrates and is backed up with the keys that spend on it, and no
 * request of a key can be on its way to the cell while another gives the key an exact state. The table is the same
 * on every member: {@link Capacity#clusterOverflowCells()} cells per limiter and algorithm, spread over the
 * partitions, a function of configuration and the partition count alone; a member configured with another table
 * is refused by {@link #checkTable}.
 *
 * <p>The owned entries ({@code getLocalMapStats()}, public API, which walks every partition: tens to hundreds of
 * microseconds whatever the entry count) are read at most once per {@value #COUNT_REFRESH_MILLIS} ms, and the states
 * created since are counted on top; while that count is under half the bound, the read waits up to
 * {@value #FAR_REFRESH_MILLIS} ms. Entries whose state has expired still count until the sweep removes them, at most a
 * sweep period and its margin after they expire ({@link ExpirySweep}), and then until the next read (more decisions
 * go to cells, never fewer); a key admitted while a read runs may be missed by both: the bound can be passed by about as
 * many keys as there are partition threads, in memory only, never in a decision.
 */
final class MemberCapacity {
    static final long COUNT_REFRESH_MILLIS = 20;
    /** The longest the count waits for a read while it is under half the bound. */
    static final long FAR_REFRESH_MILLIS = 1_000;
    /** The member attribute that carries a map's cell table, so members can compare theirs. */
    static final String TABLE_ATTRIBUTE_PREFIX = "sluice.overflow-cells.";

    /** A map's bound and policy, and its cells per limiter and algorithm (cluster-wide). */
    record Bound(long maxKeys, Capacity.Policy policy, int cells) {}

    private final Map<String, Bound> bounds = new ConcurrentHashMap<>();
    /** Per map: its owned entries, and the keys admitted since they were read. */
    private final Map<String, Count> counts = new ConcurrentHashMap<>();
    /** Cell keys found so far: each a pure function of its group, partition and index, kept to spare the search. */
    private final Map<String, String> cellKeys = new ConcurrentHashMap<>();

    /** The registry of a member config, created on first use. */
    static MemberCapacity of(Map<String, Object> userContext) {
        Object existing = userContext.computeIfAbsent(SluiceHazelcast.CAPACITY_KEY, k -> new MemberCapacity());
        if (!(existing instanceof MemberCapacity capacity)) {
            throw new IllegalStateException("the user context entry " + SluiceHazelcast.CAPACITY_KEY + " is a "
                    + existing.getClass().getName() + ", not Sluice's capacity registry");
        }
        return capacity;
    }

    void keepAt(String mapName, long maxKeys, Capacity capacity) {
        bounds.put(mapName, new Bound(maxKeys, capacity.policy(), capacity.clusterOverflowCells()));
    }

    void evictIn(String mapName) {
        bounds.remove(mapName);
    }

    /** The bound of a map that keeps its states at the bound, or -1 when it has none. */
    long keptBound(String mapName) {
        Bound bound = bounds.get(mapName);
        return bound == null ? -1 : bound.maxKeys();
    }

    /** The maps kept at a bound, with their bounds. */
    Map<String, Bound> bounds() {
        return Map.copyOf(bounds);
    }

    /**
     * Checks that every member of {@code instance}'s cluster uses the cell table this member uses for each bounded
     * map, as each announces it in its {@link #TABLE_ATTRIBUTE_PREFIX} attribute.
     *
     * @throws IllegalStateException naming the map, both tables and the member that differs
     */
    static void checkTable(HazelcastInstance instance) {
        if (!(instance.getUserContext().get(SluiceHazelcast.CAPACITY_KEY) instanceof MemberCapacity capacity)) {
            return;
        }
        for (Map.Entry<String, Bound> e : capacity.bounds.entrySet()) {
            if (e.getValue().policy() != Capacity.Policy.SHARE_OVERFLOW_CELLS) {
                continue;
            }
            String mine = String.valueOf(e.getValue().cells());
            for (Member member : instance.getCluster().getMembers()) {
                String theirs = member.getAttribute(TABLE_ATTRIBUTE_PREFIX + e.getKey());
                if (theirs != null && !theirs.equals(mine)) {
                    throw new IllegalStateException("map '" + e.getKey() + "' has " + mine + " overflow cells per"
                            + " limiter on this member and " + theirs + " on member " + member.getAddress()
                            + ": every member must place a key on the same cell, so every member must use the same"
                            + " Capacity.withOverflowCells (or none)");
                }
            }
        }
    }

    /**
     * Where the acquisitions of {@code key}, which holds no state in {@code mapName}, may go on this member, or
     * {@code null} when the map is not kept at a bound here (a processor run outside a member, an evicting map, a
     * cell's own key).
     */
    static Placing placing(HazelcastInstance instance, String mapName, String key) {
        if (instance == null || mapName == null || Overflow.isCellKey(key)
                || !(instance.getUserContext().get(SluiceHazelcast.CAPACITY_KEY) instanceof MemberCapacity capacity)) {
            return null;
        }
        Bound bound = capacity.bounds.get(mapName);
        return bound == null ? null : capacity.new Placing(instance, mapName, key, bound);
    }

    /** One key without state, and what its placement needs to read and write. */
    final class Placing {
        private final HazelcastInstance instance;
        private final String mapName;
        private final String key;
        private final Bound bound;
        private String cellKey;
        private HazelcastInternals.PartitionRecords records;

        private Placing(HazelcastInstance instance, String mapName, String key, Bound bound) {
            this.instance = instance;
            this.mapName = mapName;
            this.key = key;
            this.bound = bound;
        }

        /**
         * Where a request of {@code spec} goes ({@link Overflow#place}); for {@link Overflow.Placement#CELL},
         * {@link #cellKey()} and {@link #cellValue()} name the cell. Without the internal path to the partition's
         * records there are no cells: the key is refused where it would have gone to one.
         */
        Overflow.Placement place(LimitSpec spec, Op op, long now, long[] cellState) {
            long owned = ownedEntries(instance, mapName, bound.maxKeys());
            Overflow.Placement placement = Overflow.place(bound.policy(), spec, op, cellState, now, owned,
                    bound.maxKeys());
            return placement == Overflow.Placement.CELL && records == null ? Overflow.Placement.REFUSE : placement;
        }

        /** The stored value of the key's cell, or {@code null}: read once the key's spec is known. */
        long[] cellValue(LimitSpec spec) {
            if (bound.policy() != Capacity.Policy.SHARE_OVERFLOW_CELLS || !Overflow.shares(spec)) {
                return null;
            }
            int partition = instance.getPartitionService().getPartition(key).getPartitionId();
            records = HazelcastInternals.partitionRecords(instance, mapName, partition);
            if (records == null) {
                return null;
            }
            cellKey = MemberCapacity.this.cellKeyOf(instance, Overflow.groupOf(key, spec), key, partition, bound.cells());
            return records.read(cellKey, false);
        }

        String cellKey() {
            return cellKey;
        }

        /** Writes the cell, in this operation, on this partition's thread. */
        void writeCell(long[] stored, long entryTtlMillis) {
            records.write(cellKey, stored, entryTtlMillis);
        }

        /** Counts a state created for a key (or a cell) since the last read of the owned entries. */
        void admitted() {
            counts.computeIfAbsent(mapName, m -> new Count()).admitted();
        }

        CapacityExceededException refusal() {
            return new CapacityExceededException("map '" + mapName + "' holds its bound of " + bound.maxKeys()
                    + " keys on this member (" + bound.policy() + "); a key without state is refused until room"
                    + " frees up");
        }
    }

    /**
     * The key of {@code key}'s cell in {@code group}: one of {@code cells} per limiter and algorithm, spread over
     * the partitions, chosen among those of {@code key}'s partition by a hash of the key, and spelled (a counter
     * appended) so that it hashes to that partition. The same on every member: it depends on the key, the group,
     * the table and the partition count, and Hazelcast's partitioning of a string.
     */
    private String cellKeyOf(HazelcastInstance instance, String group, String key, int partition, int cells) {
        var partitions = instance.getPartitionService();
        int count = partitions.getPartitions().size();
        int perPartition = Math.max(1, (cells + count - 1) / count);
        String base = Overflow.cellKey(group, partition * perPartition + Overflow.cellOf(key, perPartition));
        return cellKeys.computeIfAbsent(base, b -> {
            for (int n = 0; ; n++) {
                String candidate = b + '~' + n;
                if (partitions.getPartition(candidate).getPartitionId() == partition) {
                    return candidate;
                }
            }
        });
    }

    private long ownedEntries(HazelcastInstance instance, String mapName, long maxKeys) {
        return counts.computeIfAbsent(mapName, m -> new Count()).current(System.currentTimeMillis(), maxKeys,
                () -> instance.getMap(mapName).getLocalMapStats().getOwnedEntryCount());
    }

    /** A map's owned entries as last read, and the keys admitted since. */
    static final class Count {
        private volatile long owned;
        private volatile long readAt = Long.MIN_VALUE / 2;
        private final AtomicLong admitted = new AtomicLong();
        private final AtomicBoolean reading = new AtomicBoolean();

        /**
         * The owned entries at {@code wall} (ms) as far as this member can tell, re-read with {@code read} when the
         * last read is older than {@value MemberCapacity#COUNT_REFRESH_MILLIS} ms, or
         * {@value MemberCapacity#FAR_REFRESH_MILLIS} ms while the count is under half of {@code maxKeys}; a caller
         * that finds another reading uses the last count.
         */
        long current(long wall, long maxKeys, LongSupplier read) {
            long count = owned + admitted.get();
            long maxAge = count < maxKeys / 2 ? FAR_REFRESH_MILLIS : COUNT_REFRESH_MILLIS;
            if (wall - readAt >= maxAge && reading.compareAndSet(false, true)) {
                try {
                    if (wall - readAt >= maxAge) {
                        long before = admitted.get();
                        owned = read.getAsLong();
                        admitted.addAndGet(-before); // those are in the read now; later ones are counted on top
                        readAt = wall;
                        count = owned + admitted.get();
                    }
                } finally {
                    reading.set(false);
                }
            }
            return count;
        }

        /** Counts a key admitted since the last read. */
        void admitted() {
            admitted.incrementAndGet();
        }
    }
}
