package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.LimitSpec;

/**
 * The one wire form of a {@link LimitSpec}, shared by every backend: four longs. Word 0 is the algorithm
 * id the state header uses ({@link Algorithms#algorithmId}), words 1 to 3 the record's components in
 * declaration order (unused words are 0). Ids are never reused. Decoding runs the records' own
 * validation, so a member never runs a step on an invalid spec.
 */
public final class SpecCodec {
    /** Length of an encoded spec. */
    public static final int WORDS = 4;

    private SpecCodec() {}

    /** The four words of {@code spec}. */
    public static long[] encode(LimitSpec spec) {
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
     * The spec {@link #encode} encoded.
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
