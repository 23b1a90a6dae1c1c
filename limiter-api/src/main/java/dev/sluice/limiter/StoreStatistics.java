package dev.sluice.limiter;

/**
 * What a limiter factory's store reports about its size: for every limiter on it together. A value this
 * process cannot know is -1 (a Hazelcast client sees no member's entries).
 *
 * @param keys keys held now (Hazelcast: owned entries on the members in this JVM), overflow cells not included
 * @param maxKeys the bound in key units, or -1 when unknown or unbounded
 * @param evictions states removed at the bound so far
 *     ({@link Capacity.Policy#EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS}; JCache: by the cache's provider;
 *     Hazelcast: by the members in this JVM); expiry is not eviction
 * @param capacityRefusals decisions of this process refused at the bound (a degraded deny)
 * @param overflowDecisions decisions of this process made on an overflow cell
 *     ({@link Capacity.Policy#SHARE_OVERFLOW_CELLS})
 * @param overflowRefusals those of them that refused permits
 * @param overflowCells overflow cells holding state now (Hazelcast: owned by the members in this JVM)
 */
public record StoreStatistics(long keys, long maxKeys, long evictions, long capacityRefusals, long overflowDecisions,
        long overflowRefusals, long overflowCells) {
    /** Nothing known. */
    public static final StoreStatistics UNKNOWN = new StoreStatistics(-1, -1, -1, -1, -1, -1, -1);
}
