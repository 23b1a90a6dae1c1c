package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
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
 * <p>A processor asks {@link #admit} only when it would store state for a key that has none. The bound is the
 * member's, not a partition's, so a flood aimed at one partition fills nothing while the member has room: the
 * member's owned entries ({@code getLocalMapStats()}, public API, which walks every partition: tens to hundreds of
 * microseconds whatever the entry count) are read at most once per {@value #COUNT_REFRESH_MILLIS} ms, and the keys
 * admitted since are counted on top. While that count is under half the bound, the read waits up to
 * {@value #FAR_REFRESH_MILLIS} ms: every admission is counted anyway, so only entries that came without one (a
 * migration) are missed meanwhile, and those would have to more than double the member's entries to reach the
 * bound. One partition thread reads while the others go on with the last count. Entries that expire in between
 * still count until the next read (more decisions go to cells, never fewer), and a key admitted while a read runs
 * may be missed by both: the bound can be passed by about as many keys as there are partition threads, in memory
 * only, never in a decision.
 *
 * <p>At the bound a new key of a spec that can share is sent to its overflow cell ({@link Overflow}, an ordinary
 * entry of the same map, admitted whatever the bound: the table is fixed), and the member remembers, per group of
 * cells (a policy and its algorithm), until when a state written on a cell can still limit. Until then every new
 * key of that group goes to its cell
 * even when room has come back, since it may have been decided there before and a fresh exact state would forget
 * that. That memory is the member's: a partition that migrates during a flood's last state lifetime carries none,
 * so a key of it that was on its cell may start exact on its new owner. A key that cannot share (concurrency) is
 * refused ({@link CapacityExceededException}), as is every new key under {@link Capacity.Policy#REFUSE_NEW_KEYS}.
 */
final class MemberCapacity {
    static final long COUNT_REFRESH_MILLIS = 20;
    /** The longest the count waits for a read while it is under half the bound. */
    static final long FAR_REFRESH_MILLIS = 1_000;

    /** A map's bound and policy. */
    private record Bound(long maxKeys, Capacity.Policy policy, int cells) {}

    private final Map<String, Bound> bounds = new ConcurrentHashMap<>();
    /** Per map: its owned entries, and the keys admitted since they were read. */
    private final Map<String, Count> counts = new ConcurrentHashMap<>();
    /** Per group of cells ({@link Overflow#groupOf}): until when a cell state written on this member can still limit. */
    private final Map<String, AtomicLong> overflowingUntil = new ConcurrentHashMap<>();

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
        bounds.put(mapName, new Bound(maxKeys, capacity.policy(), capacity.overflowCells(maxKeys)));
    }

    void evictIn(String mapName) {
        bounds.remove(mapName);
    }

    /** The bound of a map that keeps its states at the bound, or -1 when it has none. */
    long keptBound(String mapName) {
        Bound bound = bounds.get(mapName);
        return bound == null ? -1 : bound.maxKeys();
    }

    /**
     * Where the requests of a key without state go on the member running them: {@code null} for an exact state of
     * its own, else the key of its overflow cell.
     *
     * @throws CapacityExceededException when the key cannot go anywhere: the member is full and the key cannot share
     */
    static String admit(HazelcastInstance instance, String mapName, LimitSpec spec, String key, long now) {
        if (instance == null || mapName == null || Overflow.isCellKey(key)) {
            return null; // a processor run outside a member (unit tests), or a cell: the table is fixed
        }
        Object registry = instance.getUserContext().get(SluiceHazelcast.CAPACITY_KEY);
        if (!(registry instanceof MemberCapacity capacity)) {
            return null;
        }
        return capacity.place(instance, mapName, spec, key, now);
    }

    /** The key of the overflow cell of {@code key} in {@code mapName} on this member, or {@code null} when it has none. */
    static String cellOf(HazelcastInstance instance, String mapName, LimitSpec spec, String key) {
        if (instance == null || mapName == null
                || !(instance.getUserContext().get(SluiceHazelcast.CAPACITY_KEY) instanceof MemberCapacity capacity)) {
            return null;
        }
        Bound bound = capacity.bounds.get(mapName);
        return bound == null || bound.policy() != Capacity.Policy.SHARE_OVERFLOW_CELLS ? null
                : Overflow.cellKey(Overflow.groupOf(key, spec), Overflow.cellOf(key, bound.cells()));
    }

    private String place(HazelcastInstance instance, String mapName, LimitSpec spec, String key, long now) {
        Bound bound = bounds.get(mapName);
        if (bound == null) {
            return null;
        }
        boolean shares = bound.policy() == Capacity.Policy.SHARE_OVERFLOW_CELLS && Overflow.shares(spec);
        String group = Overflow.groupOf(key, spec);
        AtomicLong until = shares ? overflowingUntil.get(group) : null;
        boolean overflowing = until != null && now < until.get();
        if (!overflowing && ownedEntries(instance, mapName, bound.maxKeys()) < bound.maxKeys()) {
            counts.get(mapName).admitted();
            return null;
        }
        if (!shares) {
            throw new CapacityExceededException("map '" + mapName + "' holds its bound of " + bound.maxKeys()
                    + " keys on this member (" + bound.policy() + "); a key without state is refused until room"
                    + " frees up");
        }
        long lifetime = Algorithms.acquire(spec, null, now, spec.limit()).ttlMillis();
        overflowingUntil.computeIfAbsent(group, g -> new AtomicLong()).accumulateAndGet(now + lifetime, Math::max);
        return Overflow.cellKey(group, Overflow.cellOf(key, bound.cells()));
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
