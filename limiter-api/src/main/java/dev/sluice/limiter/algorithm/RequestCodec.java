package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.LimitSpec;
import java.util.Objects;

/**
 * The one encoding of a request, shared by every backend's processors: {@value #WORDS} longs, the spec's
 * four ({@link SpecCodec}), then the op's id, the permits and the lease id. Several requests are
 * concatenated; {@link StepRunner} runs them straight from the words.
 */
public final class RequestCodec {
    /** Words per request. */
    public static final int WORDS = SpecCodec.WORDS + 3;
    private static final int OP = SpecCodec.WORDS;
    private static final int PERMITS = SpecCodec.WORDS + 1;
    private static final int LEASE_ID = SpecCodec.WORDS + 2;

    private RequestCodec() {}

    /** One request's words. */
    public static long[] encode(LimitSpec spec, Op op, long permits, long leaseId) {
        long[] words = new long[WORDS];
        encode(spec, op, permits, leaseId, words, 0);
        return words;
    }

    /** Writes one request's words into {@code into} at {@code offset}. */
    public static void encode(LimitSpec spec, Op op, long permits, long leaseId, long[] into, int offset) {
        Objects.requireNonNull(op, "op");
        System.arraycopy(SpecCodec.encode(Objects.requireNonNull(spec, "spec")), 0, into, offset, SpecCodec.WORDS);
        into[offset + OP] = op.id();
        into[offset + PERMITS] = permits;
        into[offset + LEASE_ID] = leaseId;
    }

    /**
     * How many requests {@code words} holds.
     *
     * @throws IllegalArgumentException if it is not a whole, non-zero number of requests
     */
    public static int count(long[] words) {
        if (words == null || words.length == 0 || words.length % WORDS != 0) {
            throw new IllegalArgumentException("encoded requests must be a positive multiple of " + WORDS
                    + " words, were " + (words == null ? "null" : words.length + " words"));
        }
        return words.length / WORDS;
    }

    /** The spec of request {@code index}, rebuilt and so validated again. */
    public static LimitSpec spec(long[] words, int index) {
        int o = index * WORDS;
        return SpecCodec.decode(words[o], words[o + 1], words[o + 2], words[o + 3]);
    }

    public static Op op(long[] words, int index) {
        return Op.ofId((int) words[index * WORDS + OP]);
    }

    public static long permits(long[] words, int index) {
        return words[index * WORDS + PERMITS];
    }

    public static long leaseId(long[] words, int index) {
        return words[index * WORDS + LEASE_ID];
    }
}
