package dev.sluice.limiter;

import java.util.Objects;

/**
 * How many keys a store may hold, and what it does at that bound: the defence against a flood of new keys
 * (a client that sends a new identity with every request). Immutable.
 *
 * <p>The bound is a number of keys, given directly ({@link #maxKeys(long)}) or as a share of the heap
 * ({@link #heapPercent(int)}), which {@link #resolveMaxKeys} turns into keys at
 * {@value #ESTIMATED_BYTES_PER_KEY} bytes a key. That estimate covers a key of up to 64 characters with a
 * window, bucket or GCRA state and the store's own overhead on every backend; a sliding log's state grows
 * with its limit, so size stores of large logs by keys.
 *
 * <p>At the bound, {@link Policy#EVICT_LEAST_RECENTLY_USED} (the default) removes the state used longest ago
 * (its key's budget starts over), and {@link Policy#REFUSE_NEW_KEYS} keeps every stored state and refuses
 * decisions for keys that have none until room is free again: such a decision follows the limiter's
 * {@link FailureMode} (degraded, counted as a capacity refusal), with {@link CapacityExceededException} as
 * its cause. A store applies one policy to all its keys, never both.
 */
public final class Capacity {
    /** What a store does when it holds as many keys as its bound allows. */
    public enum Policy {
        /** Removes the least recently used state to make room; that key's budget starts over. */
        EVICT_LEAST_RECENTLY_USED,
        /** Keeps every state; a decision for a key without state fails with {@link CapacityExceededException}. */
        REFUSE_NEW_KEYS
    }

    /** The heap a stored key is assumed to cost when a bound is a heap share. */
    public static final long ESTIMATED_BYTES_PER_KEY = 400;
    /** The heap share of {@link #defaults()}. */
    public static final int DEFAULT_HEAP_PERCENT = 25;
    /** The largest heap share a bound may take. */
    public static final int MAX_HEAP_PERCENT = 90;
    /** The largest bound in keys (Hazelcast's eviction sizes are {@code int}s). */
    public static final long MAX_KEYS = Integer.MAX_VALUE;

    private static final Capacity DEFAULTS = heapPercent(DEFAULT_HEAP_PERCENT);

    private final long maxKeys;
    private final int heapPercent;
    private final Policy policy;

    private Capacity(long maxKeys, int heapPercent, Policy policy) {
        this.maxKeys = maxKeys;
        this.heapPercent = heapPercent;
        this.policy = policy;
    }

    /** {@value #DEFAULT_HEAP_PERCENT}% of the heap, evicting the least recently used state at the bound. */
    public static Capacity defaults() {
        return DEFAULTS;
    }

    /**
     * At most {@code keys} keys, evicting the least recently used state at the bound.
     *
     * @throws IllegalArgumentException unless {@code keys} is between 1 and {@value #MAX_KEYS}
     */
    public static Capacity maxKeys(long keys) {
        return new Capacity(Checks.checkRange("maxKeys", keys, 1, MAX_KEYS), 0, Policy.EVICT_LEAST_RECENTLY_USED);
    }

    /**
     * As many keys as {@code percent}% of the maximum heap holds at {@value #ESTIMATED_BYTES_PER_KEY} bytes a key,
     * evicting the least recently used state at the bound.
     *
     * @throws IllegalArgumentException unless {@code percent} is between 1 and {@value #MAX_HEAP_PERCENT}
     */
    public static Capacity heapPercent(int percent) {
        return new Capacity(0, (int) Checks.checkRange("heapPercent", percent, 1, MAX_HEAP_PERCENT),
                Policy.EVICT_LEAST_RECENTLY_USED);
    }

    /** This bound with {@code policy} at it. */
    public Capacity withPolicy(Policy policy) {
        return new Capacity(maxKeys, heapPercent, Objects.requireNonNull(policy, "policy"));
    }

    /** This bound, refusing keys without state at it ({@link Policy#REFUSE_NEW_KEYS}). */
    public Capacity refuseNewKeys() {
        return withPolicy(Policy.REFUSE_NEW_KEYS);
    }

    public Policy policy() {
        return policy;
    }

    /** The bound in keys when it was given in keys, else 0. */
    public long fixedMaxKeys() {
        return maxKeys;
    }

    /** The heap share when the bound was given as one, else 0. */
    public int heapPercentage() {
        return heapPercent;
    }

    /**
     * The bound in keys: the one given, or the heap share of {@code maxHeapBytes} divided by
     * {@value #ESTIMATED_BYTES_PER_KEY} bytes times {@code copiesPerKey} (a Hazelcast member also holds backup
     * copies of other members' keys); at least 1, at most {@value #MAX_KEYS}.
     *
     * @throws IllegalArgumentException if {@code maxHeapBytes} or {@code copiesPerKey} is not positive
     */
    public long resolveMaxKeys(long maxHeapBytes, int copiesPerKey) {
        Checks.checkRange("maxHeapBytes", maxHeapBytes, 1, Long.MAX_VALUE);
        Checks.checkRange("copiesPerKey", copiesPerKey, 1, 1_000);
        if (maxKeys > 0) {
            return maxKeys;
        }
        long keys = (long) (maxHeapBytes / 100.0 * heapPercent / ESTIMATED_BYTES_PER_KEY / copiesPerKey);
        return Math.max(1, Math.min(MAX_KEYS, keys));
    }

    /** {@link #resolveMaxKeys} for this JVM's maximum heap ({@link Runtime#maxMemory()}), one copy per key. */
    public long resolveMaxKeys() {
        return resolveMaxKeys(Runtime.getRuntime().maxMemory(), 1);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Capacity c && c.maxKeys == maxKeys && c.heapPercent == heapPercent && c.policy == policy;
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxKeys, heapPercent, policy);
    }

    @Override
    public String toString() {
        return "Capacity[" + (maxKeys > 0 ? maxKeys + " keys" : heapPercent + "% of the heap") + ", " + policy + "]";
    }
}
