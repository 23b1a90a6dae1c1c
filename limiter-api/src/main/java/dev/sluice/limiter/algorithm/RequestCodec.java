package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.util.Objects;

/**
 * The one wire form of requests and specs, shared by every backend's processors. A request is the op's id, the
 * permits, the lease id, then its spec's words. Several requests are concatenated; a request is addressed by the
 * offset of its first word, and {@link #next} gives the offset of the one after it. {@link StepRunner} runs them
 * straight from the words.
 *
 * <p>A rate or concurrency spec is four longs: word 0 its algorithm's id ({@link AlgorithmDescription#id()}, the
 * one the state header uses), words 1 to 3 its parameter values as the description reads them
 * ({@link AlgorithmDescription#wireValues}, packed where it has more parameters than words; unused words are 0). A composite ({@link LimitSpec.AllOf}) is its id, its
 * component count, then each component's four words. Ids are never reused. Decoding builds the spec through its
 * description, which runs the record's own validation, so a member never runs a step on an invalid spec.
 */
public final class RequestCodec {
    /** Words before the spec's. */
    public static final int FIXED_WORDS = 3;
    /** Length of an encoded rate or concurrency spec. */
    public static final int SPEC_WORDS = 4;
    private static final int OP = 0;
    private static final int PERMITS = 1;
    private static final int LEASE_ID = 2;

    private RequestCodec() {}

    /** One request's words. */
    public static long[] encode(LimitSpec spec, Op op, long permits, long leaseId) {
        Objects.requireNonNull(op, "op");
        long[] specWords = encodeSpec(Objects.requireNonNull(spec, "spec"));
        long[] words = new long[FIXED_WORDS + specWords.length];
        words[OP] = op.id();
        words[PERMITS] = permits;
        words[LEASE_ID] = leaseId;
        System.arraycopy(specWords, 0, words, FIXED_WORDS, specWords.length);
        return words;
    }

    /** Requests one after another, as one array. */
    public static long[] concat(java.util.List<long[]> requests) {
        int length = 0;
        for (long[] r : requests) {
            length += r.length;
        }
        long[] words = new long[length];
        int at = 0;
        for (long[] r : requests) {
            System.arraycopy(r, 0, words, at, r.length);
            at += r.length;
        }
        return words;
    }

    /**
     * The offset of the request after the one at {@code offset} ({@code words.length} after the last).
     *
     * @throws IllegalArgumentException if the words at {@code offset} are not a request
     */
    public static int next(long[] words, int offset) {
        if (offset < 0 || offset + FIXED_WORDS >= words.length) {
            throw new IllegalArgumentException("no encoded request at word " + offset + " of " + words.length);
        }
        return offset + FIXED_WORDS + specLength(words, offset + FIXED_WORDS);
    }

    /**
     * How many requests {@code words} holds.
     *
     * @throws IllegalArgumentException if it is not a whole, non-zero number of requests
     */
    public static int count(long[] words) {
        if (words == null || words.length == 0) {
            throw new IllegalArgumentException("encoded requests must not be empty, were "
                    + (words == null ? "null" : "0 words"));
        }
        int n = 0;
        for (int at = 0; at < words.length; at = next(words, at)) {
            n++;
        }
        return n;
    }

    /** The spec of the request at {@code offset}, rebuilt and so validated again. */
    public static LimitSpec specAt(long[] words, int offset) {
        return decodeSpec(words, offset + FIXED_WORDS);
    }

    public static Op opAt(long[] words, int offset) {
        return Op.ofId((int) words[offset + OP]);
    }

    public static long permitsAt(long[] words, int offset) {
        return words[offset + PERMITS];
    }

    public static long leaseIdAt(long[] words, int offset) {
        return words[offset + LEASE_ID];
    }

    /** The words of {@code spec}: {@value #SPEC_WORDS}, or {@code 2 + 4n} for a composite of {@code n}. */
    public static long[] encodeSpec(LimitSpec spec) {
        if (spec instanceof LimitSpec.AllOf all) {
            int n = all.components().size();
            long[] words = new long[2 + SPEC_WORDS * n];
            words[0] = CompositeStep.ID;
            words[1] = n;
            for (int i = 0; i < n; i++) {
                System.arraycopy(encodeSpec(all.components().get(i)), 0, words, 2 + SPEC_WORDS * i, SPEC_WORDS);
            }
            return words;
        }
        AlgorithmDescription algorithm = AlgorithmDescription.of(spec);
        long[] values = algorithm.wireValues(spec);
        long[] words = new long[SPEC_WORDS];
        words[0] = algorithm.id();
        System.arraycopy(values, 0, words, 1, values.length); // the catalogue admits at most SPEC_WORDS - 1 values
        return words;
    }

    /**
     * How many words the spec encoded at {@code offset} takes.
     *
     * @throws IllegalArgumentException if the words there are not an encoded spec
     */
    static int specLength(long[] words, int offset) {
        if (offset < 0 || offset >= words.length) {
            throw new IllegalArgumentException("no encoded spec at word " + offset + " of " + words.length);
        }
        int length = SPEC_WORDS;
        if (words[offset] == CompositeStep.ID) {
            long n = offset + 1 < words.length ? words[offset + 1] : -1;
            if (n < 2 || n > LimitSpec.AllOf.MAX_COMPONENTS) {
                throw new IllegalArgumentException("an encoded composite must have 2 to "
                        + LimitSpec.AllOf.MAX_COMPONENTS + " components, had " + n);
            }
            length = 2 + SPEC_WORDS * (int) n;
        }
        if (offset + length > words.length) {
            throw new IllegalArgumentException("an encoded spec at word " + offset + " needs " + length
                    + " words, only " + (words.length - offset) + " are left");
        }
        return length;
    }

    /** The spec encoded at {@code offset}, rebuilt and so validated again. */
    public static LimitSpec decodeSpec(long[] words, int offset) {
        int length = specLength(words, offset);
        if (words[offset] == CompositeStep.ID) {
            int n = (length - 2) / SPEC_WORDS;
            LimitSpec[] components = new LimitSpec[n];
            for (int i = 0; i < n; i++) {
                int o = offset + 2 + SPEC_WORDS * i;
                components[i] = decodeSpec(words[o], words[o + 1], words[o + 2], words[o + 3]);
            }
            return LimitSpec.allOf(components);
        }
        return decodeSpec(words[offset], words[offset + 1], words[offset + 2], words[offset + 3]);
    }

    /**
     * The rate or concurrency spec {@link #encodeSpec} encoded as four words.
     *
     * @throws IllegalArgumentException if the words are not an encoded spec
     */
    public static LimitSpec decodeSpec(long id, long a, long b, long c) {
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
        return description.fromWire(java.util.Arrays.copyOf(words, description.wireWords()));
    }
}
