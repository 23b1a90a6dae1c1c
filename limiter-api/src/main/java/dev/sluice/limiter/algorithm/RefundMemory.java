package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.HEADER;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * The ids of the refunds a rate state has recently applied, so that a refund run again (Hazelcast re-runs an
 * invocation whose owner left after running it, at least once) changes nothing the second time, as a
 * concurrency acquisition's nonce makes its retry find the lease it was granted.
 *
 * <p>Layout: a trailer after the algorithm's own words, {@code (id, keptUntil)} per refund, oldest first, its
 * entry count in bits 16 to 30 of the header's shape word (every shape fits the low 16). The steps never see
 * it: {@link Algorithms#step} strips it before the step and puts it back after, so a state with a memory is
 * read, decided and merged exactly as the same state without one. A state without a memory has no trailer
 * and costs nothing.
 *
 * <p>Only a refund that gave something back is remembered, for {@link #KEPT_MILLIS} after it ran: longer than
 * Hazelcast's invocation retry window with its defaults (250 retries 500 ms apart, 125 s), so a re-run always
 * finds it. The entry keeps the key's entry alive for that long, also when the refund left nothing else to
 * keep (a bucket refilled to full): otherwise a re-run could land on a fresh state and give back there. At
 * most {@link #MAX_IDS} are kept per key; past that the oldest is forgotten, so only a refund re-run after
 * {@value #MAX_IDS} later refunds on the same key within the window could apply twice. Cost: two words (16
 * bytes; one long, 8 bytes, as Hazelcast packs it) per remembered refund, at most 128 words; nothing once
 * they expire.
 */
final class RefundMemory {
    /** How long a refund's id is kept after it was applied. */
    static final long KEPT_MILLIS = 150_000;
    /** The most refund ids kept per key. */
    static final int MAX_IDS = 64;
    /** Bits of a refund's permits word below its 33-bit id ({@code LimitSpec.MAX_LIMIT} fits). */
    static final int ID_SHIFT = 30;
    static final long PERMITS_MASK = (1L << ID_SHIFT) - 1;
    private static final int COUNT_SHIFT = 16;
    // 15 bits: bit 31 of the shape word marks a debt ({@link Debt#FLAG}), which the memory's edits leave alone.
    private static final long COUNT_MASK = 0x7FFFL << COUNT_SHIFT;
    private static final int ENTRY = 2;

    private RefundMemory() {}

    /** The number of remembered refunds in a state's header; 0 for none or for words that are not Sluice state. */
    static int count(long[] state) {
        if (Algorithms.algorithmIdOf(state) < 0 || Algorithms.algorithmIdOf(state) == ConcurrencyStep.ID) {
            return 0;
        }
        int n = (int) ((state[HEADER] & COUNT_MASK) >>> COUNT_SHIFT);
        return n > 0 && state.length >= HEADER_WORDS + ENTRY * n ? n : 0;
    }

    /** The state without its memory (the very instance when it has none). */
    static long[] core(long[] state, int count) {
        if (count == 0) {
            return state;
        }
        long[] core = Arrays.copyOf(state, state.length - ENTRY * count);
        core[HEADER] &= ~COUNT_MASK;
        return core;
    }

    /** The memory's entries, or {@code null} for none. */
    static long[] entries(long[] state, int count) {
        return count == 0 ? null : Arrays.copyOfRange(state, state.length - ENTRY * count, state.length);
    }

    /** The entries still kept at {@code now} (the very instance when none expired; {@code null} when none is left). */
    static long[] live(long[] entries, long now) {
        if (entries == null) {
            return null;
        }
        int kept = 0;
        for (int i = 0; i < entries.length; i += ENTRY) {
            kept += entries[i + 1] > now ? 1 : 0;
        }
        if (kept * ENTRY == entries.length) {
            return entries;
        }
        if (kept == 0) {
            return null;
        }
        long[] live = new long[kept * ENTRY];
        for (int i = 0, to = 0; i < entries.length; i += ENTRY) {
            if (entries[i + 1] > now) {
                live[to++] = entries[i];
                live[to++] = entries[i + 1];
            }
        }
        return live;
    }

    static boolean contains(long[] entries, long id) {
        if (entries != null) {
            for (int i = 0; i < entries.length; i += ENTRY) {
                if (entries[i] == id) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The entries with {@code id} added, kept until {@code until}; the oldest forgotten past {@link #MAX_IDS}. */
    static long[] add(long[] entries, long id, long until) {
        long[] from = entries == null ? new long[0] : entries;
        int drop = from.length / ENTRY >= MAX_IDS ? ENTRY : 0;
        long[] added = new long[from.length - drop + ENTRY];
        System.arraycopy(from, drop, added, 0, from.length - drop);
        added[added.length - 2] = id;
        added[added.length - 1] = until;
        return added;
    }

    /** The latest time an entry is kept until. */
    static long keptUntil(long[] entries) {
        long until = Long.MIN_VALUE;
        for (int i = 1; i < entries.length; i += ENTRY) {
            until = Math.max(until, entries[i]);
        }
        return until;
    }

    /** {@code core} with {@code entries} after it ({@code core} itself for none). */
    static long[] attach(long[] core, long[] entries) {
        if (entries == null) {
            return core;
        }
        long[] state = Arrays.copyOf(core, core.length + entries.length);
        System.arraycopy(entries, 0, state, core.length, entries.length);
        state[HEADER] = (core[HEADER] & ~COUNT_MASK) | ((long) (entries.length / ENTRY) << COUNT_SHIFT);
        return state;
    }

    /** Both memories, each id once with its later keep time, the latest {@link #MAX_IDS}; {@code null} for none. */
    static long[] union(long[] a, long[] b) {
        if (a == null || b == null) {
            return a == null ? b : a;
        }
        Map<Long, Long> until = new HashMap<>();
        for (long[] m : new long[][] {a, b}) {
            for (int i = 0; i < m.length; i += ENTRY) {
                until.merge(m[i], m[i + 1], Math::max);
            }
        }
        long[][] sorted = until.entrySet().stream().map(e -> new long[] {e.getKey(), e.getValue()})
                .sorted(Comparator.comparingLong(e -> e[1])).toArray(long[][]::new);
        int from = Math.max(0, sorted.length - MAX_IDS);
        long[] out = new long[(sorted.length - from) * ENTRY];
        for (int i = from, to = 0; i < sorted.length; i++) {
            out[to++] = sorted[i][0];
            out[to++] = sorted[i][1];
        }
        return out;
    }
}
