package dev.sluice.limiter;

import java.util.Objects;

/**
 * How much state a store may hold, and what it does at that bound: the defence against a flood of new keys
 * (a client that sends a new identity with every request). Immutable.
 *
 * <p>The bound is a number of key units of {@value #ESTIMATED_BYTES_PER_KEY} bytes, given directly
 * ({@link #maxKeys(long)}), in bytes ({@link #maxBytes(long)}) or as a share of the heap
 * ({@link #heapPercent(int)}). A key with a window, bucket or GCRA state takes one unit; a larger state (a
 * sliding log, many concurrency leases) takes as many units as its size needs ({@link #unitsOf}), so a bound
 * in keys is a bound in bytes as well.
 *
 * <p>The one rule every policy but the explicit opt-in keeps: <b>no decision is ever looser because of other
 * keys' traffic.</b> State that still limits is never dropped to make room; only state that reads as a full
 * budget (an expired window, a full bucket, no live lease) goes. At the bound:
 * <ul>
 *   <li>{@link Policy#SHARE_OVERFLOW_CELLS} (the default): a key that has no state and meets a full store is
 *       decided on one of a fixed table of overflow cells of its limiter and algorithm, chosen by a hash of the
 *       key. Every key on a cell shares the cell's budget, so sharing only ever refuses more, never admits more; a
 *       key stays on its cell until the cell reads as a full budget, so moving to exact state never loosens either,
 *       and a limit changed live applies to the cell's consumption as to a key's own. Exact states take at most
 *       {@link #exactUnits three quarters} of the bound and cells the rest, so the two together stay within it;
 *       a key that finds even that full is refused. A concurrency key cannot share leases: it is refused (a
 *       degraded deny).
 *   <li>{@link Policy#REFUSE_NEW_KEYS}: a key that has no state is refused while the store is full.
 *   <li>{@link Policy#EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS}: the least recently used state is dropped
 *       to make room, <em>whatever it still holds</em>: that key's budget starts over, and whoever can mint new
 *       keys can reset any other key's budget. Only for users who accept that.
 * </ul>
 * A refusal at the bound ({@link CapacityExceededException}) is a degraded deny whatever the limiter's
 * {@link FailureMode}: under {@link FailureMode#ALLOW} a key beyond the bound would otherwise be unlimited.
 */
public final class Capacity {
    /** What a store does when it holds as much state as its bound allows. */
    public enum Policy {
        /** New keys at the bound share overflow cells (conservative); stored state is never dropped. */
        SHARE_OVERFLOW_CELLS,
        /** New keys at the bound are refused; stored state is never dropped. */
        REFUSE_NEW_KEYS,
        /** The least recently used state is dropped at the bound, and its key's budget starts over. */
        EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS
    }

    /** The heap one key unit is assumed to cost: a key of up to 64 characters, a small state and the store's overhead. */
    public static final long ESTIMATED_BYTES_PER_KEY = 400;
    /** The bytes of a state's words that fit in one key unit beside the key and the store's overhead. */
    static final long STATE_BYTES_PER_UNIT = 200;
    /** The heap share of {@link #defaults()}. */
    public static final int DEFAULT_HEAP_PERCENT = 25;
    /** The largest heap share a bound may take. */
    public static final int MAX_HEAP_PERCENT = 90;
    /** The largest bound in keys (Hazelcast's sizes are {@code int}s). */
    public static final long MAX_KEYS = Integer.MAX_VALUE;
    /** The fewest overflow cells a spec gets. */
    public static final int MIN_OVERFLOW_CELLS = 16;
    /** The most overflow cells a spec gets. */
    public static final int MAX_OVERFLOW_CELLS = 1 << 20;
    /**
     * The overflow cells of each limiter and algorithm on a cluster when none are set: a constant, not a share of
     * a bound, because every member must place a key on the same cell and members' bounds differ.
     */
    public static final int DEFAULT_CLUSTER_OVERFLOW_CELLS = 4096;

    private static final Capacity DEFAULTS = heapPercent(DEFAULT_HEAP_PERCENT);

    private final long maxKeys;
    private final int heapPercent;
    private final Policy policy;
    /** 0: the default (see {@link #overflowCells(long)} and {@link #clusterOverflowCells()}). */
    private final int overflowCells;

    private Capacity(long maxKeys, int heapPercent, Policy policy, int overflowCells) {
        this.maxKeys = maxKeys;
        this.heapPercent = heapPercent;
        this.policy = policy;
        this.overflowCells = overflowCells;
    }

    /** {@value #DEFAULT_HEAP_PERCENT}% of the heap, new keys at the bound on overflow cells. */
    public static Capacity defaults() {
        return DEFAULTS;
    }

    /**
     * At most {@code keys} key units, new keys at the bound on overflow cells.
     *
     * @throws IllegalArgumentException unless {@code keys} is between 1 and {@value #MAX_KEYS}
     */
    public static Capacity maxKeys(long keys) {
        return new Capacity(Checks.checkRange("maxKeys", keys, 1, MAX_KEYS), 0, Policy.SHARE_OVERFLOW_CELLS, 0);
    }

    /**
     * At most {@code bytes} of state, in key units of {@value #ESTIMATED_BYTES_PER_KEY} bytes, new keys at the
     * bound on overflow cells.
     *
     * @throws IllegalArgumentException unless {@code bytes} holds between 1 and {@value #MAX_KEYS} key units
     */
    public static Capacity maxBytes(long bytes) {
        Checks.checkRange("maxBytes", bytes, ESTIMATED_BYTES_PER_KEY, MAX_KEYS * ESTIMATED_BYTES_PER_KEY);
        return maxKeys(bytes / ESTIMATED_BYTES_PER_KEY);
    }

    /**
     * As many key units as {@code percent}% of the maximum heap holds, new keys at the bound on overflow cells.
     *
     * @throws IllegalArgumentException unless {@code percent} is between 1 and {@value #MAX_HEAP_PERCENT}
     */
    public static Capacity heapPercent(int percent) {
        return new Capacity(0, (int) Checks.checkRange("heapPercent", percent, 1, MAX_HEAP_PERCENT),
                Policy.SHARE_OVERFLOW_CELLS, 0);
    }

    /** This bound with {@code policy} at it. */
    public Capacity withPolicy(Policy policy) {
        return new Capacity(maxKeys, heapPercent, Objects.requireNonNull(policy, "policy"), overflowCells);
    }

    /** This bound, refusing keys without state at it ({@link Policy#REFUSE_NEW_KEYS}). */
    public Capacity refuseNewKeys() {
        return withPolicy(Policy.REFUSE_NEW_KEYS);
    }

    /**
     * This bound, dropping the least recently used state at it, which starts that key's budget over
     * ({@link Policy#EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS}): a flood of new keys can then reset any key.
     */
    public Capacity evictLeastRecentlyUsedResettingBudgets() {
        return withPolicy(Policy.EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS);
    }

    /**
     * This bound with {@code cells} overflow cells per limiter and algorithm ({@link Policy#SHARE_OVERFLOW_CELLS}).
     * More cells share each budget among fewer keys (fewer refusals under a flood); live cells are states, and
     * count in the bound. Default: in-process, a quarter of the bound in keys, between {@value #MIN_OVERFLOW_CELLS}
     * and {@value #MAX_OVERFLOW_CELLS}; on a cluster {@value #DEFAULT_CLUSTER_OVERFLOW_CELLS}, since the table
     * must be the same on every member (members started with different tables refuse to work together).
     *
     * @throws IllegalArgumentException unless {@code cells} is between 1 and {@value #MAX_OVERFLOW_CELLS}
     */
    public Capacity withOverflowCells(int cells) {
        return new Capacity(maxKeys, heapPercent, policy, (int) Checks.checkRange("overflowCells", cells, 1,
                MAX_OVERFLOW_CELLS));
    }

    public Policy policy() {
        return policy;
    }

    /** The bound in keys when it was given in keys (or bytes), else 0. */
    public long fixedMaxKeys() {
        return maxKeys;
    }

    /** The heap share when the bound was given as one, else 0. */
    public int heapPercentage() {
        return heapPercent;
    }

    /** The overflow cells set with {@link #withOverflowCells}, or 0 for the default. */
    public int fixedOverflowCells() {
        return overflowCells;
    }

    /**
     * The overflow cells per limiter and algorithm of a single store whose bound is {@code resolvedMaxKeys}: the
     * number set, or a quarter of the bound (the share cells may hold), between {@value #MIN_OVERFLOW_CELLS} and
     * {@value #MAX_OVERFLOW_CELLS}. Only for a store that decides every key itself (in-process): a table sized
     * from one node's bound must never be used where another node may decide the same key.
     */
    public int overflowCells(long resolvedMaxKeys) {
        if (overflowCells > 0) {
            return overflowCells;
        }
        return (int) Math.max(MIN_OVERFLOW_CELLS, Math.min(MAX_OVERFLOW_CELLS, resolvedMaxKeys / 4));
    }

    /**
     * The overflow cells per limiter and algorithm of a store whose members share keys: the number set, or
     * {@value #DEFAULT_CLUSTER_OVERFLOW_CELLS}; a function of configuration alone, never of a member's heap.
     */
    public int clusterOverflowCells() {
        return overflowCells > 0 ? overflowCells : DEFAULT_CLUSTER_OVERFLOW_CELLS;
    }

    /**
     * The units of a bound of {@code boundUnits} that new exact states may fill under {@code policy}: three
     * quarters of it under {@link Policy#SHARE_OVERFLOW_CELLS}, at least one unit less (the rest holds cells, so exact states and cells
     * together stay within the bound), all of it otherwise.
     */
    public static long exactUnits(Policy policy, long boundUnits) {
        return policy == Policy.SHARE_OVERFLOW_CELLS ? Math.max(1, boundUnits - Math.max(1, boundUnits / 4))
                : boundUnits;
    }

    /**
     * The bound in key units: the one given, or the heap share of {@code maxHeapBytes} divided by
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

    /**
     * The key units a stored state of {@code stateWords} words takes: one for a state of up to
     * {@value #STATE_BYTES_PER_UNIT} bytes (25 words), one more for each further {@value #ESTIMATED_BYTES_PER_KEY}
     * bytes.
     */
    public static long unitsOf(int stateWords) {
        long extra = 8L * stateWords - STATE_BYTES_PER_UNIT;
        return extra <= 0 ? 1 : 1 + (extra + ESTIMATED_BYTES_PER_KEY - 1) / ESTIMATED_BYTES_PER_KEY;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Capacity c && c.maxKeys == maxKeys && c.heapPercent == heapPercent && c.policy == policy
                && c.overflowCells == overflowCells;
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxKeys, heapPercent, policy, overflowCells);
    }

    @Override
    public String toString() {
        return "Capacity[" + (maxKeys > 0 ? maxKeys + " keys" : heapPercent + "% of the heap") + ", " + policy
                + (overflowCells > 0 ? ", " + overflowCells + " overflow cells" : "") + "]";
    }
}
