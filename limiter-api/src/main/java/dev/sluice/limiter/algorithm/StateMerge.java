package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER;
import static dev.sluice.limiter.algorithm.Algorithms.LAST_NOW;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Merges two copies of one key's state that diverged while a cluster was split: the result carries at
 * least the consumption of each copy, so a healed cluster never grants what either side already gave
 * away. Pure, like the steps: it never reads a clock and never mutates its arguments; it returns one of
 * its arguments when that one already dominates the other.
 *
 * <ul>
 *   <li>fixed window, sliding counter: the same window keeps the higher counts; otherwise the newer window
 *       (a sliding counter also keeps the older side's count as the newer side's previous window);
 *   <li>sliding window: per segment, the higher count;
 *   <li>sliding log: the newest {@code max(n1, n2)} timestamps of both logs, layouts 1 and 2 alike, merged as
 *       layout 2;
 *   <li>token bucket: the fewer tokens with the later refill time;
 *   <li>GCRA: the later theoretical arrival time;
 *   <li>concurrency: the union of the leases (a lease on both sides keeps its later expiry), layout 1
 *       and 2 alike, merged as layout 2;
 *   <li>composite: component by component, each as above;
 *   <li>different algorithms or layouts: the state that saw the later time.
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
        if (rememberedA == 0 && rememberedB == 0) {
            return mergeStates(a, b);
        }
        // Each side's recent refund ids too, so a refund re-run after the merge is still recognized.
        long[] merged = mergeStates(RefundMemory.core(a, rememberedA), RefundMemory.core(b, rememberedB));
        long[] memory = RefundMemory.union(RefundMemory.entries(a, rememberedA), RefundMemory.entries(b, rememberedB));
        int id = Algorithms.algorithmIdOf(merged);
        return id < 0 || id == ConcurrencyStep.ID ? merged : RefundMemory.attach(merged, memory);
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
        if (idA == ConcurrencyStep.ID && idB == ConcurrencyStep.ID
                && isWellFormedConcurrency(a) && isWellFormedConcurrency(b)) {
            return concurrency(a, b); // layouts 1 to 3 have common ground: the leases
        }
        if (idA == SlidingLogStep.ID && idB == SlidingLogStep.ID
                && SlidingLogStep.isReadable(Algorithms.layoutOf(a)) && SlidingLogStep.isReadable(Algorithms.layoutOf(b))
                && SlidingLogStep.isWellFormedLog(a) && SlidingLogStep.isWellFormedLog(b)) {
            return slidingLog(a, b); // layouts 1 and 2 have common ground: the times
        }
        if (a[HEADER] != b[HEADER]) { // another algorithm, layout or shape: no common ground
            return a[LAST_NOW] > b[LAST_NOW] ? a : b;
        }
        switch (idA) {
            case FixedWindowStep.ID:
                return windowCounts(a, b, 1);
            case SlidingCounterStep.ID:
                return slidingCounter(a, b);
            case SlidingWindowStep.ID:
                return slidingWindow(a, b);
            case SlidingLogStep.ID:
                return slidingLog(a, b);
            case TokenBucketStep.ID:
                return tokenBucket(a, b);
            case GcraStep.ID:
                return gcra(a, b);
            case CompositeStep.ID:
                return composite(a, b);
            default:
                return a[LAST_NOW] > b[LAST_NOW] ? a : b;
        }
    }

    /** A concurrency state of a layout this code reads, whose words fit that layout. */
    private static boolean isWellFormedConcurrency(long[] state) {
        return ConcurrencyStep.isReadable(Algorithms.layoutOf(state)) && ConcurrencyStep.hasValidLength(state);
    }

    /** Composites of the same component count: each component merged on its own. */
    private static long[] composite(long[] a, long[] b) {
        int n = Algorithms.shapeOf(a);
        if (!CompositeStep.isWellFormed(a, n) || !CompositeStep.isWellFormed(b, n)) {
            return a[LAST_NOW] > b[LAST_NOW] ? a : b;
        }
        long[][] pa = CompositeStep.parts(a, n);
        long[][] pb = CompositeStep.parts(b, n);
        long[][] merged = new long[n][];
        boolean allA = true;
        boolean allB = true;
        for (int i = 0; i < n; i++) {
            merged[i] = merge(pa[i], pb[i]);
            allA &= merged[i] == pa[i];
            allB &= merged[i] == pb[i];
        }
        if (allA && a[EXPIRES_AT] >= b[EXPIRES_AT]) {
            return a;
        }
        if (allB && b[EXPIRES_AT] >= a[EXPIRES_AT]) {
            return b;
        }
        return CompositeStep.join(a[HEADER], Math.max(a[LAST_NOW], b[LAST_NOW]), Math.max(a[EXPIRES_AT], b[EXPIRES_AT]),
                merged);
    }

    /** Layout {@code [header, lastNow, expiresAt, windowStart, count...]}: same window, max of each count. */
    private static long[] windowCounts(long[] a, long[] b, int counts) {
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

    /** {@code [header, lastNow, expiresAt, start, previous, current]}. */
    private static long[] slidingCounter(long[] a, long[] b) {
        int start = HEADER_WORDS;
        int previous = HEADER_WORDS + 1;
        int current = HEADER_WORDS + 2;
        if (a[start] == b[start]) {
            return windowCounts(a, b, 2);
        }
        long[] newer = a[start] > b[start] ? a : b;
        long[] older = newer == a ? b : a;
        long window = newer[EXPIRES_AT] - newer[start] - (older[EXPIRES_AT] - older[start]) == 0
                ? (newer[EXPIRES_AT] - newer[start]) / 2 : -1;
        if (window > 0 && older[start] + window == newer[start] && older[current] > newer[previous]) {
            long[] merged = newer.clone();
            merged[previous] = older[current];
            return finish(merged, a, b, true);
        }
        return newer;
    }

    /** {@code [header(segments), lastNow, expiresAt, newestSegment, ring...]}. */
    private static long[] slidingWindow(long[] a, long[] b) {
        int newestAt = HEADER_WORDS;
        int ring = HEADER_WORDS + 1;
        int segments = a.length - ring;
        if (segments <= 0 || b.length != a.length) {
            return a[LAST_NOW] > b[LAST_NOW] ? a : b;
        }
        long newest = Math.max(a[newestAt], b[newestAt]);
        long[] merged = new long[a.length];
        merged[HEADER] = a[HEADER];
        merged[newestAt] = newest;
        for (long j = newest - segments + 1; j <= newest; j++) {
            int slot = ring + (int) Math.floorMod(j, (long) segments);
            merged[slot] = Math.max(countAt(a, j, segments), countAt(b, j, segments));
        }
        long[] base = a[newestAt] >= b[newestAt] ? a : b;
        long[] other = base == a ? b : a;
        merged[LAST_NOW] = Math.max(a[LAST_NOW], b[LAST_NOW]);
        merged[EXPIRES_AT] = Math.max(a[EXPIRES_AT], b[EXPIRES_AT]);
        if (Arrays.equals(merged, base)) {
            return base;
        }
        return Arrays.equals(merged, other) ? other : merged;
    }

    private static long countAt(long[] s, long segment, int segments) {
        long newest = s[HEADER_WORDS];
        if (segment > newest || segment <= newest - segments) {
            return 0;
        }
        return s[HEADER_WORDS + 1 + (int) Math.floorMod(segment, (long) segments)];
    }

    /** {@code [header, lastNow, expiresAt, t1 <= t2 <= ...]}: the newest max(n1, n2) of both logs. */
    private static long[] slidingLog(long[] stateA, long[] stateB) {
        long[] a = SlidingLogStep.timestamps(stateA);
        long[] b = SlidingLogStep.timestamps(stateB);
        int n = Math.max(a.length, b.length) - HEADER_WORDS;
        long[] all = new long[a.length + b.length - 2 * HEADER_WORDS];
        System.arraycopy(a, HEADER_WORDS, all, 0, a.length - HEADER_WORDS);
        System.arraycopy(b, HEADER_WORDS, all, a.length - HEADER_WORDS, b.length - HEADER_WORDS);
        Arrays.sort(all);
        long[] merged = new long[HEADER_WORDS + n];
        merged[HEADER] = a[HEADER];
        merged[LAST_NOW] = Math.max(a[LAST_NOW], b[LAST_NOW]);
        merged[EXPIRES_AT] = Math.max(a[EXPIRES_AT], b[EXPIRES_AT]);
        System.arraycopy(all, all.length - n, merged, HEADER_WORDS, n);
        if (Arrays.equals(merged, a)) {
            return stateA;
        }
        return Arrays.equals(merged, b) ? stateB : SlidingLogStep.encode(merged);
    }

    /**
     * {@code [header, lastNow, expiresAt, tokens, lastRefill]}: fewer tokens and a later refill time never
     * hold more tokens than either side at any later time. The bucket is full again (the state expires)
     * as much later than the fewer-tokens side's expiry as the refill time moved.
     */
    private static long[] tokenBucket(long[] a, long[] b) {
        int tokens = HEADER_WORDS;
        int lastRefill = HEADER_WORDS + 1;
        long[] fewer = a[tokens] < b[tokens] || (a[tokens] == b[tokens] && a[lastRefill] >= b[lastRefill]) ? a : b;
        long[] other = fewer == a ? b : a;
        if (fewer[lastRefill] >= other[lastRefill]) {
            return withTimes(fewer, a, b);
        }
        long[] merged = fewer.clone();
        merged[lastRefill] = other[lastRefill];
        merged[EXPIRES_AT] = fewer[EXPIRES_AT] + (other[lastRefill] - fewer[lastRefill]);
        merged[LAST_NOW] = Math.max(a[LAST_NOW], b[LAST_NOW]);
        return merged;
    }

    /** {@code [header, lastNow, expiresAt, tatMillis, tatFraction]}: the later arrival time. */
    private static long[] gcra(long[] a, long[] b) {
        int tat = HEADER_WORDS;
        int fraction = HEADER_WORDS + 1;
        boolean aLater = a[tat] > b[tat] || (a[tat] == b[tat] && a[fraction] >= b[fraction]);
        return withTimes(aLater ? a : b, a, b);
    }

    /**
     * The union of two concurrency states' leases by token, in layout 3 (a layout 1 lease is read with nonce 0). A
     * lease on both sides keeps its later expiry, the larger permits and its known nonce.
     */
    private static long[] concurrency(long[] original, long[] other) {
        long[] a = ConcurrencyStep.upgradeLeases(original);
        long[] b = ConcurrencyStep.upgradeLeases(other);
        Leases mine = Leases.decode(a);
        Leases theirs = Leases.decode(b);
        Leases merged = new Leases(mine.size + theirs.size + 1);
        Map<Long, Integer> slotOfToken = new HashMap<>();
        for (int i = 0; i < mine.size; i++) {
            slotOfToken.put(mine.tokens[i], merged.size);
            merged.add(mine.tokens[i], mine.permits[i], mine.expiries[i], mine.nonces[i]);
        }
        boolean changed = false;
        for (int i = 0; i < theirs.size; i++) {
            Integer slot = slotOfToken.get(theirs.tokens[i]);
            if (slot == null) {
                merged.add(theirs.tokens[i], theirs.permits[i], theirs.expiries[i], theirs.nonces[i]);
                changed = true;
                continue;
            }
            if (theirs.expiries[i] > merged.expiries[slot]) {
                merged.expiries[slot] = theirs.expiries[i];
                merged.permits[slot] = Math.max(merged.permits[slot], theirs.permits[i]);
                changed = true;
            }
            if (merged.nonces[slot] == 0 && theirs.nonces[i] != 0) {
                merged.nonces[slot] = theirs.nonces[i];
                changed = true;
            }
        }
        long lastToken = Math.max(a[Leases.LAST_TOKEN], b[Leases.LAST_TOKEN]);
        long lastNow = Math.max(a[LAST_NOW], b[LAST_NOW]);
        long expiresAt = Math.max(a[EXPIRES_AT], b[EXPIRES_AT]);
        if (!changed && lastToken == a[Leases.LAST_TOKEN] && lastNow == a[LAST_NOW] && expiresAt == a[EXPIRES_AT]) {
            return original; // in its own layout: the next step that changes it writes layout 3
        }
        merged.sortByExpiry();
        return merged.encode(lastNow, expiresAt, lastToken, ConcurrencyStep.latestAge(merged));
    }

    /** {@code chosen} (whose expiry stands), with the later of both last-seen times. */
    private static long[] withTimes(long[] chosen, long[] a, long[] b) {
        long lastNow = Math.max(a[LAST_NOW], b[LAST_NOW]);
        if (chosen[LAST_NOW] == lastNow) {
            return chosen;
        }
        long[] merged = chosen.clone();
        merged[LAST_NOW] = lastNow;
        return merged;
    }

    private static long[] finish(long[] merged, long[] a, long[] b, boolean fromB) {
        merged[LAST_NOW] = Math.max(a[LAST_NOW], b[LAST_NOW]);
        merged[EXPIRES_AT] = Math.max(a[EXPIRES_AT], b[EXPIRES_AT]);
        if (!fromB && Arrays.equals(merged, a)) {
            return a;
        }
        return Arrays.equals(merged, b) ? b : merged;
    }
}
