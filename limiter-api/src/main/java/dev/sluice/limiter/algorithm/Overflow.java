package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.LimitSpec;

/**
 * Overflow cells, shared by every store that bounds its state ({@link dev.sluice.limiter.Capacity.Policy#SHARE_OVERFLOW_CELLS}):
 * which cell a key without state lands on, the cell's key, and how a verdict decided on a cell is marked.
 *
 * <p>A cell is an ordinary state of the key's own spec, under a key of its own: every key that lands on it
 * shares its budget, so a cell refuses whenever any of its keys' own exact history would (it holds the sum of
 * their consumption), and its budget only ever refuses more. Cells are grouped by the key's policy (the key
 * without its last segment) and the spec's algorithm ({@link #groupOf}), not by the whole spec: a limit changed
 * live keeps its cells, and the step applies the new spec to the cell's consumption as it does to a key's own
 * state, so a change of spec never hands a key on a cell a fresh budget.
 *
 * <p>A verdict decided on a cell carries {@link #CELL_TOKEN} in its token (a grant's token is otherwise the time
 * of the decision, far below it): the refund of such a grant goes back to the cell that gave it, so refunds stay
 * exact, and callers can count overflow decisions.
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
     * The group of cells {@code key} of {@code spec} lands in: the key's policy (all but its last segment) and the
     * spec's algorithm (a composite's, component by component); the same in every JVM.
     */
    public static String groupOf(String key, LimitSpec spec) {
        StringBuilder group = new StringBuilder(key.length() + 8).append(key, 0, key.lastIndexOf('/') + 1);
        if (spec instanceof LimitSpec.AllOf all) {
            group.append(Algorithms.algorithmId(spec));
            all.components().forEach(c -> group.append('.').append(Algorithms.algorithmId(c)));
        } else {
            group.append(Algorithms.algorithmId(spec));
        }
        return group.toString();
    }

    /**
     * The store key of cell {@code cell} of {@code group} ({@link #groupOf}): it starts with a control character,
     * which no key that {@link dev.sluice.limiter.Keys} builds can hold, so no client can name a cell.
     */
    public static String cellKey(String group, int cell) {
        return CELL_KEY_PREFIX + group + '#' + cell;
    }

    /** Whether a store key names an overflow cell. */
    public static boolean isCellKey(String key) {
        return key.startsWith(CELL_KEY_PREFIX);
    }

    /** Whether a verdict's token says it was decided on an overflow cell. */
    public static boolean isCellToken(long token) {
        return (token & CELL_TOKEN) != 0;
    }

    /** The token without its cell mark: what a refund on the cell needs. */
    public static long unmarked(long token) {
        return token & ~CELL_TOKEN;
    }

    /** {@code v} (without state) marked as decided on an overflow cell. */
    public static Verdict marked(Verdict v) {
        return Verdict.of(v.granted(), v.remaining(), v.limit(), v.retryAfterMillis(), v.resetAfterMillis(),
                v.token() | CELL_TOKEN);
    }
}
