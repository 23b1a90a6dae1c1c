package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER;
import static dev.sluice.limiter.algorithm.Algorithms.LAST_NOW;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;

import java.util.Arrays;

/**
 * Merges two copies of one key's state that diverged while a cluster was split: the result carries at
 * least the consumption of each copy, so a healed cluster never grants what either side already gave
 * away. Pure, like the steps: it never reads a clock and never mutates its arguments; it returns one of
 * its arguments when that one already dominates the other. Each algorithm merges its own state
 * ({@link Algorithm#merge}); this class keeps the refund memory of both and the larger debt ({@link Debt}: the
 * larger amount owed, kept as long as either side kept it), and of two states with no common
 * ground (different algorithms, or a layout or length the algorithm cannot read) keeps the one that saw the
 * later time. The algorithms merge as follows:
 *
 * <ul>
 *   <li>fixed window, calendar window (of either kind), sliding counter: the same window keeps the higher counts;
 *       otherwise the newer window
 *       (a sliding counter also keeps the older side's count as the newer side's previous window);
 *   <li>sliding window: per segment, the higher count;
 *   <li>sliding log: the newest {@code max(n1, n2)} timestamps of both logs, layouts 1 and 2 alike, merged as
 *       layout 2;
 *   <li>token bucket: the fewer tokens with the later refill time;
 *   <li>GCRA: the later theoretical arrival time;
 *   <li>concurrency: the union of the leases (a lease on both sides keeps its later expiry), layout 1
 *       and 2 alike, merged as layout 2;
 *   <li>composite: component by component, each as above.
 * </ul>
 */
public final class StateMerge {
    private StateMerge() {}

    /**
     * The state that keeps the consumption of both {@code a} and {@code b}; either may be {@code null}
     * (absent). Words that are not Sluice state lose to words that are; of two such, {@code b} is kept.
     */
    public static long[] merge(long[] a, long[] b) {
        int rememberedA = RefundMemory.count(a);
        int rememberedB = RefundMemory.count(b);
        long[] owingA = RefundMemory.core(a, rememberedA);
        long[] owingB = RefundMemory.core(b, rememberedB);
        if (rememberedA == 0 && rememberedB == 0 && !Debt.has(owingA) && !Debt.has(owingB)) {
            return mergeStates(a, b);
        }
        // Each side's recent refund ids too, so a refund re-run after the merge is still recognized; and the larger
        // debt, which either side's later grants would have had to pay first.
        long[] merged = mergeStates(Debt.without(owingA), Debt.without(owingB));
        long[] memory = RefundMemory.union(RefundMemory.entries(a, rememberedA), RefundMemory.entries(b, rememberedB));
        int id = Algorithms.algorithmIdOf(merged);
        if (id < 0 || id == ConcurrencyStep.ID) {
            return merged;
        }
        return RefundMemory.attach(Debt.attach(merged, Debt.larger(Debt.trailer(owingA), Debt.trailer(owingB))),
                memory);
    }

    private static long[] mergeStates(long[] a, long[] b) {
        int idA = Algorithms.algorithmIdOf(a);
        int idB = Algorithms.algorithmIdOf(b);
        if (idA < 0) {
            return idB < 0 && b == null ? a : b;
        }
        if (idB < 0) {
            return a;
        }
        Algorithm algorithm = Catalogue.withId(idA);
        Algorithm other = Catalogue.withId(idB);
        if (algorithm == null || other == null || !algorithm.readsStateOf(idB) || !other.readsStateOf(idA)) {
            algorithm = null; // ids that read each other's state share its layout: a fixed and a calendar window
        }
        if (algorithm != null && algorithm.reads(Algorithms.layoutOf(a)) && algorithm.reads(Algorithms.layoutOf(b))
                && algorithm.isWellFormed(a) && algorithm.isWellFormed(b)) {
            return algorithm.merge(a, b); // layouts it reads have common ground, as its merge finds it
        }
        return a[LAST_NOW] > b[LAST_NOW] ? a : b; // another algorithm, or words it cannot read: no common ground
    }

    /** Layout {@code [header, lastNow, expiresAt, windowStart, count...]}: same window, max of each count. */
    static long[] windowCounts(long[] a, long[] b, int counts) {
        int start = HEADER_WORDS;
        if (a[start] != b[start]) {
            return a[start] > b[start] ? a : b;
        }
        long[] merged = a.clone();
        boolean fromB = false;
        for (int i = start + 1; i <= start + counts; i++) {
            if (b[i] > merged[i]) {
                merged[i] = b[i];
                fromB = true;
            }
        }
        return finish(merged, a, b, fromB);
    }








    /** {@code chosen} (whose expiry stands), with the later of both last-seen times. */
    static long[] withTimes(long[] chosen, long[] a, long[] b) {
        long lastNow = Math.max(a[LAST_NOW], b[LAST_NOW]);
        if (chosen[LAST_NOW] == lastNow) {
            return chosen;
        }
        long[] merged = chosen.clone();
        merged[LAST_NOW] = lastNow;
        return merged;
    }

    static long[] finish(long[] merged, long[] a, long[] b, boolean fromB) {
        merged[LAST_NOW] = Math.max(a[LAST_NOW], b[LAST_NOW]);
        merged[EXPIRES_AT] = Math.max(a[EXPIRES_AT], b[EXPIRES_AT]);
        if (!fromB && Arrays.equals(merged, a)) {
            return a;
        }
        return Arrays.equals(merged, b) ? b : merged;
    }
}
