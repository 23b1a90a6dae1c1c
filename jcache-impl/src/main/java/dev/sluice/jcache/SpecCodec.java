package dev.sluice.jcache;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.spi.Algorithms;

/**
 * Turns a {@link LimitSpec} into four longs and back, so the spec can travel inside a {@code Serializable}
 * processor although the spec records are not {@code Serializable}. Word 0 is the algorithm id the state
 * header uses ({@link Algorithms#algorithmId}), words 1 to 3 the record's components in declaration order.
 * Decoding runs the records' own validation.
 */
final class SpecCodec {
    static final int WORDS = 4;

    private SpecCodec() {}

    static long[] encode(LimitSpec spec) {
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
    static LimitSpec decode(long id, long a, long b, long c) {
        LimitSpec spec = switch ((int) id) {
            case 1 -> new LimitSpec.FixedWindow(a, b);
            case 2 -> new LimitSpec.SlidingWindow(a, b, Math.toIntExact(c));
            case 3 -> new LimitSpec.SlidingLog(a, b);
            case 4 -> new LimitSpec.SlidingCounter(a, b);
            case 5 -> new LimitSpec.TokenBucket(a, b, c);
            case 6 -> new LimitSpec.Gcra(a, b, c);
            case 7 -> new LimitSpec.Concurrency(a, b);
            default -> throw new IllegalArgumentException("unknown algorithm id " + id + " in an encoded spec");
        };
        if (Algorithms.algorithmId(spec) != id) { // the ids are Algorithms' own; this catches a renumbering
            throw new IllegalStateException("algorithm id " + id + " decoded as " + spec.algorithm()
                    + ", whose id is " + Algorithms.algorithmId(spec));
        }
        return spec;
    }
}
