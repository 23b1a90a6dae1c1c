package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.LimitSpec;
import java.util.Objects;

/**
 * The one encoding of a request, shared by every backend's processors: the op's id, the permits, the lease
 * id, then the spec's words ({@link SpecCodec}: four, more for a composite). Several requests are
 * concatenated; a request is addressed by the offset of its first word, and {@link #next} gives the offset
 * of the one after it. {@link StepRunner} runs them straight from the words.
 */
public final class RequestCodec {
    /** Words before the spec's. */
    public static final int FIXED_WORDS = 3;
    private static final int OP = 0;
    private static final int PERMITS = 1;
    private static final int LEASE_ID = 2;

    private RequestCodec() {}

    /** One request's words. */
    public static long[] encode(LimitSpec spec, Op op, long permits, long leaseId) {
        Objects.requireNonNull(op, "op");
        long[] specWords = SpecCodec.encode(Objects.requireNonNull(spec, "spec"));
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
        return offset + FIXED_WORDS + SpecCodec.length(words, offset + FIXED_WORDS);
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
        return SpecCodec.decode(words, offset + FIXED_WORDS);
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
}
