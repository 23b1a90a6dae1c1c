package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.LimitSpec;

/**
 * Overflow cells, shared by every store that bounds its state ({@link Capacity.Policy#SHARE_OVERFLOW_CELLS}):
 * the one rule that says where a request of a key without state is decided ({@link #place}), which cell a key
 * lands on, the cell's key, and how a verdict decided on a cell is marked.
 *
 * <p>A cell is an ordinary state of the key's own spec, under a key of its own: every key that lands on it
 * shares its budget, so a cell refuses whenever any of its keys' own exact history would (it holds the sum of
 * their consumption), and its budget only ever refuses more. Cells belong to one limiter ({@link #groupOf}: a
 * partitioned limiter's policy, or a plain limiter's own key, with the spec's algorithm), never to a key prefix
 * that other limiters share: another limiter's traffic never touches them. They are not grouped by the whole
 * spec: a limit changed live keeps its cells, and the step applies the new spec to the cell's consumption as it
 * does to a key's own state, so a change of spec never hands a key on a cell a fresh budget.
 *
 * <p>Which state decides a key is a function of the key and of data the store holds beside it, never of a
 * timer or hint of the deciding node: a key without state whose cell is live is decided on the cell, whatever
 * room the store has, because the cell may hold that key's spending; a key leaves its cell only when the cell
 * reads as a full budget, and then no history of the key can limit it either. A store places a key's cell where
 * it can read it in the same atomic step as the key (the same lock in-process, the same partition on
 * Hazelcast), so nothing of the key's spending can be in flight towards the cell when the key moves.
 *
 * <p>Only acquisitions (and probes, which answer what an acquisition would) are decided on cells; a read of a key
 * on a live cell answers the cell's state, and a reset of such a key changes nothing ({@link #onCell}). A refund of a
 * grant made on a cell gives nothing back (the runtime does not send it, {@link #isCellToken}): a cell's refund
 * memory would be shared with every key of the cell, and keeping the permits only refuses more. A refund or
 * release whose key holds no state never reaches a cell either.
 */
public final class Overflow {
    /** Set in the token of every verdict decided on an overflow cell. */
    public static final long CELL_TOKEN = 1L << 62;
    private static final String CELL_KEY_PREFIX = "\u0000sluice-overflow/";

    private Overflow() {}

    /** Whether keys of {@code spec} may share a cell: rate specs do, concurrency leases cannot be shared. */
    public static boolean shares(LimitSpec spec) {
        if (spec instanceof LimitSpec.AllOf all) {
            return all.components().stream().allMatch(Overflow::shares);
        }
        return !(spec instanceof LimitSpec.Concurrency);
    }

    /** The cell of {@code key} among {@code cells}; the same in every JVM. */
    public static int cellOf(String key, int cells) {
        long h = 0xcbf29ce484222325L; // FNV-1a over the chars, then a finalizer: String.hashCode is too easy to collide
        for (int i = 0; i < key.length(); i++) {
            h = (h ^ key.charAt(i)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return (int) Math.floorMod(h, (long) cells);
    }

    /**
     * The group of cells {@code key} of {@code spec} lands in: its limiter (a partitioned limiter's key
     * {@code <prefix>/<policy>/<partition>} without its partition, any other key whole) and the spec's algorithm
     * (a composite's, component by component); the same in every JVM. A plain limiter's key
     * ({@code <prefix>/<name>}) is its own group, so two plain limiters under one prefix never share a cell.
     */
    public static String groupOf(String key, LimitSpec spec) {
        int last = key.lastIndexOf('/');
        boolean partitioned = last > 0 && key.lastIndexOf('/', last - 1) >= 0;
        StringBuilder group = new StringBuilder(key.length() + 8);
        if (partitioned) {
            group.append(key, 0, last + 1);
        } else {
            group.append(key).append('#');
        }
        if (spec instanceof LimitSpec.AllOf all) {
            group.append(Algorithms.algorithmId(spec));
            all.components().forEach(c -> group.append('.').append(Algorithms.algorithmId(c)));
        } else {
            group.append(Algorithms.algorithmId(spec));
        }
        return group.toString();
    }

    /** Where a request of a key that holds no state is decided ({@link #place}). */
    public enum Placement {
        /** On a new state of the key's own. */
        EXACT,
        /** On the key's overflow cell. */
        CELL,
        /** Nowhere: refused at the bound ({@link dev.sluice.limiter.CapacityExceededException}). */
        REFUSE
    }

    /**
     * The one placement rule of every bounded store, for a request of a key that holds no state (see the class
     * comment). Only an acquisition or probe is ever placed on a cell or refused; a read or reset of the key
     * ({@link Op#INSPECT}, {@link Op#RESET}) goes to its cell while the cell is live and to the key's own absent
     * state otherwise, never refused; any other operation runs on the absent state, where it changes nothing. Under {@link Capacity.Policy#SHARE_OVERFLOW_CELLS} new exact states
     * take at most {@link Capacity#exactUnits} of the bound and cells the rest, so both together stay within it.
     *
     * @param cellState the key's cell as stored now, or {@code null} (ignored unless the key can share)
     * @param heldUnits what the store (a Hazelcast member: its owned entries) holds now, cells included
     * @param boundUnits the store's bound
     */
    public static Placement place(Capacity.Policy policy, LimitSpec spec, Op op, long[] cellState, long now,
            long heldUnits, long boundUnits) {
        if (!op.isPlaced() || policy == Capacity.Policy.EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS) {
            return Placement.EXACT;
        }
        boolean sharing = policy == Capacity.Policy.SHARE_OVERFLOW_CELLS && shares(spec);
        if (sharing && cellState != null && Algorithms.expiresAt(cellState) > now) {
            return Placement.CELL;
        }
        if (op != Op.ACQUIRE) {
            return Placement.EXACT; // a cell that is not live reads as the full budget a state of its own starts with
        }
        if (heldUnits < Capacity.exactUnits(policy, boundUnits)) {
            return Placement.EXACT;
        }
        return sharing && heldUnits < boundUnits ? Placement.CELL : Placement.REFUSE;
    }

    /**
     * What a request placed on a cell runs there: an acquisition or a read as it is; a reset only reads the cell,
     * since resetting a cell would hand its budget to every key that lands on it (to whoever mints new keys).
     */
    public static Op onCell(Op op) {
        return op == Op.RESET ? Op.INSPECT : op;
    }

    /**
     * The store key of cell {@code cell} of {@code group} ({@link #groupOf}): it starts with a control character,
     * which no key that {@link dev.sluice.limiter.Keys} builds can hold, so no client can name a cell.
     */
    public static String cellKey(String group, int cell) {
        return CELL_KEY_PREFIX + group + '#' + cell;
    }

    /** What every cell's store key starts with. */
    public static String cellKeyPrefix() {
        return CELL_KEY_PREFIX;
    }

    /** Whether a store key names an overflow cell. */
    public static boolean isCellKey(String key) {
        return key.startsWith(CELL_KEY_PREFIX);
    }

    /** Whether a verdict's token says it was decided on an overflow cell. */
    public static boolean isCellToken(long token) {
        return (token & CELL_TOKEN) != 0;
    }

    /** The token without its cell mark: a grant's decision time on the deciding node's clock. */
    public static long unmarked(long token) {
        return token & ~CELL_TOKEN;
    }

    /** {@code v} (without state) marked as decided on an overflow cell. */
    public static Verdict marked(Verdict v) {
        return Verdict.of(v.granted(), v.remaining(), v.limit(), v.retryAfterMillis(), v.resetAfterMillis(),
                v.token() | CELL_TOKEN);
    }
}
