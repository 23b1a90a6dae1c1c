package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;

/**
 * One algorithm: its {@link AlgorithmDescription} and its step over {@code long[]} state. Each is a class beside
 * its step, registered as a service ({@code provides} in module-info and a line in
 * {@code META-INF/services/dev.sluice.limiter.algorithm.Algorithm}), and {@link Catalogue} finds them all; the
 * codec, the dispatch in {@link Algorithms}, the spec validation and every list of algorithms read it from there.
 *
 * <p>A step writes state whose header ({@link Algorithms#header}) carries {@code description().id()}; the dispatch
 * checks the header, drops stale state, and takes care of refund memory and the operations no step handles.
 */
public interface Algorithm {
    /** What it is, as everything outside its step sees it. */
    AlgorithmDescription description();

    /**
     * One decision on live state of this algorithm's layout (stale or absent state arrives as {@code null}).
     *
     * @param op {@link Op#ACQUIRE} for a rate algorithm; any but {@link Op#REFUND} for a concurrency algorithm
     * @see Algorithms#step
     */
    Verdict run(LimitSpec spec, long[] state, long now, Op op, long permits, long leaseId);

    /**
     * The state with {@code permits} granted at {@code at} given back, or {@code state} itself when the grant no
     * longer counts in it. A concurrency algorithm, whose leases are released instead, never gets this call.
     */
    long[] refunded(LimitSpec spec, long[] state, long now, long permits, long at);

    /** Whether state of a layout this code reads has words that fit it, so a step never reads past their end. */
    boolean isWellFormed(long[] state);

    /**
     * Two copies of one key's state that diverged while a cluster was split, as one that carries at least the
     * consumption of each, so a healed cluster never grants what either side already gave away; one of the two
     * when it already dominates the other. Both are well formed, of layouts this code reads ({@link StateMerge}
     * checks), without refund memory.
     */
    long[] merge(long[] a, long[] b);

    /**
     * Whether live state written by algorithm {@code algorithmId} is read by this one's step as if it were its own:
     * its own id, or one whose state has the same layout and meaning (a window's start, end and count), so that a
     * live change between the two keeps the consumption rather than refusing the key.
     */
    default boolean readsStateOf(int algorithmId) {
        return algorithmId == description().id();
    }

    /**
     * The longest its state can matter after a write: by default what taking the whole limit from no state at the
     * epoch leaves, the longest for an algorithm whose windows are epoch-aligned lengths.
     */
    default long longestLifetimeMillis(LimitSpec spec) {
        return Algorithms.acquire(spec, null, 0, spec.limit()).ttlMillis();
    }

    /** The layout version this code writes. */
    default int layoutVersion() {
        return Algorithms.LAYOUT_VERSION;
    }

    /** Whether this code reads state of {@code layout}: the one it writes, or an older one it upgrades. */
    default boolean reads(int layout) {
        return layout == layoutVersion();
    }

    /** Live state of a layout it reads, in the layout it writes. */
    default long[] upgrade(long[] state) {
        return state;
    }

    /**
     * Whether its state in the current layout is a byte stream already, so that a backend that packs states into
     * fewer words gains nothing by trying.
     */
    default boolean isCompact() {
        return false;
    }

    /**
     * Refuses live state whose shape cannot serve {@code spec} (a composite of another component count).
     *
     * @throws IllegalStateException saying what the entry holds and what to do
     */
    default void checkShape(LimitSpec spec, long[] state) {}
}
