package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.LimitSpec;

/**
 * The one wire form of a {@link LimitSpec}, shared by every backend. A rate or concurrency spec is four
 * longs: word 0 the algorithm id the state header uses ({@link Algorithms#algorithmId}), words 1 to 3 the
 * record's components in declaration order (unused words are 0). A composite ({@link LimitSpec.AllOf}) is
 * its id, its component count, then each component's four words. Ids are never reused. Decoding runs the
 * records' own validation, so a member never runs a step on an invalid spec.
 */
public final class SpecCodec {
    /** Length of an encoded rate or concurrency spec. */
    public static final int WORDS = 4;

    private SpecCodec() {}

    /** The words of {@code spec}: {@value #WORDS}, or {@code 2 + 4n} for a composite of {@code n}. */
    public static long[] encode(LimitSpec spec) {
        if (spec instanceof LimitSpec.AllOf all) {
            int n = all.components().size();
            long[] words = new long[2 + WORDS * n];
            words[0] = Algorithms.ALL_OF;
            words[1] = n;
            for (int i = 0; i < n; i++) {
                System.arraycopy(encode(all.components().get(i)), 0, words, 2 + WORDS * i, WORDS);
            }
            return words;
        }
        long id = Algorithms.algorithmId(spec);
        if (spec instanceof LimitSpec.FixedWindow s) {
            return new long[] {id, s.permitLimit(), s.windowMillis(), 0};
        } else if (spec instanceof LimitSpec.SlidingWindow s) {
            return new long[] {id, s.permitLimit(), s.windowMillis(), s.segmentsPerWindow()};
        } else if (spec instanceof LimitSpec.SlidingLog s) {
            return new long[] {id, s.permitLimit(), s.windowMillis(), 0};
        } else if (spec instanceof LimitSpec.SlidingCounter s) {
            return new long[] {id, s.permitLimit(), s.windowMillis(), 0};
        } else if (spec instanceof LimitSpec.TokenBucket s) {
            return new long[] {id, s.tokenLimit(), s.tokensPerPeriod(), s.replenishmentPeriodMillis()};
        } else if (spec instanceof LimitSpec.Gcra s) {
            return new long[] {id, s.permitsPerPeriod(), s.periodMillis(), s.burst()};
        } else if (spec instanceof LimitSpec.Concurrency s) {
            return new long[] {id, s.permitLimit(), s.leaseDurationMillis(), 0};
        }
        throw new IllegalArgumentException("unknown spec type " + spec.getClass().getName());
    }

    /**
     * How many words the spec encoded at {@code offset} takes.
     *
     * @throws IllegalArgumentException if the words there are not an encoded spec
     */
    public static int length(long[] words, int offset) {
        if (offset < 0 || offset >= words.length) {
            throw new IllegalArgumentException("no encoded spec at word " + offset + " of " + words.length);
        }
        int length = WORDS;
        if (words[offset] == Algorithms.ALL_OF) {
            long n = offset + 1 < words.length ? words[offset + 1] : -1;
            if (n < 2 || n > LimitSpec.AllOf.MAX_COMPONENTS) {
                throw new IllegalArgumentException("an encoded composite must have 2 to "
                        + LimitSpec.AllOf.MAX_COMPONENTS + " components, had " + n);
            }
            length = 2 + WORDS * (int) n;
        }
        if (offset + length > words.length) {
            throw new IllegalArgumentException("an encoded spec at word " + offset + " needs " + length
                    + " words, only " + (words.length - offset) + " are left");
        }
        return length;
    }

    /** The spec encoded at {@code offset}, rebuilt and so validated again. */
    public static LimitSpec decode(long[] words, int offset) {
        int length = length(words, offset);
        if (words[offset] == Algorithms.ALL_OF) {
            int n = (length - 2) / WORDS;
            LimitSpec[] components = new LimitSpec[n];
            for (int i = 0; i < n; i++) {
                int o = offset + 2 + WORDS * i;
                components[i] = decode(words[o], words[o + 1], words[o + 2], words[o + 3]);
            }
            return LimitSpec.allOf(components);
        }
        return decode(words[offset], words[offset + 1], words[offset + 2], words[offset + 3]);
    }

    /**
     * The rate or concurrency spec {@link #encode} encoded as four words.
     *
     * @throws IllegalArgumentException if the words are not an encoded spec
     */
    public static LimitSpec decode(long id, long a, long b, long c) {
        LimitSpec spec = switch ((int) id) {
            case Algorithms.FIXED_WINDOW -> new LimitSpec.FixedWindow(a, b);
            case Algorithms.SLIDING_WINDOW -> new LimitSpec.SlidingWindow(a, b, Math.toIntExact(c));
            case Algorithms.SLIDING_LOG -> new LimitSpec.SlidingLog(a, b);
            case Algorithms.SLIDING_COUNTER -> new LimitSpec.SlidingCounter(a, b);
            case Algorithms.TOKEN_BUCKET -> new LimitSpec.TokenBucket(a, b, c);
            case Algorithms.GCRA -> new LimitSpec.Gcra(a, b, c);
            case Algorithms.CONCURRENCY -> new LimitSpec.Concurrency(a, b);
            default -> throw new IllegalArgumentException("unknown algorithm id " + id
                    + " in an encoded spec; is this node running an older Sluice than the caller?");
        };
        if (Algorithms.algorithmId(spec) != id) { // the ids are Algorithms' own; this catches a renumbering
            throw new IllegalStateException("algorithm id " + id + " decoded as " + spec.algorithm()
                    + ", whose id is " + Algorithms.algorithmId(spec));
        }
        return spec;
    }
}
