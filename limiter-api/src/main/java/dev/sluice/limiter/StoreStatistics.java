package dev.sluice.limiter;

/**
 * What a limiter factory's store reports about its size: for every limiter on it together. A value this
 * process cannot know is -1 (a Hazelcast client sees no member's entries).
 *
 * @param keys keys held now (Hazelcast: owned entries on the members in this JVM)
 * @param maxKeys the bound in keys, or -1 when unknown or unbounded
 * @param evictions states removed at the bound so far ({@link Capacity.Policy#EVICT_LEAST_RECENTLY_USED};
 *     Hazelcast: by the members in this JVM); expiry is not eviction
 * @param capacityRefusals decisions of this process refused at the bound ({@link Capacity.Policy#REFUSE_NEW_KEYS})
 */
public record StoreStatistics(long keys, long maxKeys, long evictions, long capacityRefusals) {
    /** Nothing known. */
    public static final StoreStatistics UNKNOWN = new StoreStatistics(-1, -1, -1, -1);
}
