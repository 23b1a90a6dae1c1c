package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;

/**
 * The one wire form of a {@link LimitSpec}, shared by every backend. A rate or concurrency spec is four
 * longs: word 0 its algorithm's id ({@link AlgorithmDescription#id()}, the one the state header uses), words 1
 * to 3 its parameter values as the description reads them ({@link AlgorithmDescription#values}; unused words are
 * 0). A composite ({@link LimitSpec.AllOf}) is its id, its component count, then each component's four words.
 * Ids are never reused. Decoding builds the spec through its description, which runs the record's own
 * validation, so a member never runs a step on an invalid spec.
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
            words[0] = CompositeStep.ID;
            words[1] = n;
            for (int i = 0; i < n; i++) {
                System.arraycopy(encode(all.components().get(i)), 0, words, 2 + WORDS * i, WORDS);
            }
            return words;
        }
        AlgorithmDescription algorithm = AlgorithmDescription.of(spec);
        long[] values = algorithm.values(spec);
        long[] words = new long[WORDS];
        words[0] = algorithm.id();
        System.arraycopy(values, 0, words, 1, values.length); // the catalogue admits at most WORDS - 1 values
        return words;
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
        if (words[offset] == CompositeStep.ID) {
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
        if (words[offset] == CompositeStep.ID) {
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
        Algorithm algorithm = id == (int) id ? Catalogue.withId((int) id) : null;
        if (algorithm == null) {
            throw new IllegalArgumentException("unknown algorithm id " + id
                    + " in an encoded spec; is this node running an older Sluice than the caller?");
        }
        AlgorithmDescription description = algorithm.description();
        if (description.kind() == AlgorithmDescription.Kind.COMPOSITE) {
            throw new IllegalArgumentException("algorithm id " + id + " is a composite, encoded with its component"
                    + " count and components, not in four words");
        }
        long[] words = {a, b, c};
        return description.spec(java.util.Arrays.copyOf(words, description.parameters().size()));
    }
}
