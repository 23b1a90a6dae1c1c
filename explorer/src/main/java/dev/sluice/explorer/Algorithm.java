package dev.sluice.explorer;

import dev.sluice.limiter.LimitSpec;
import java.time.Duration;

/**
 * The rate algorithms the explorer compares, each configured to allow the same limit per window: the window
 * algorithms directly, the token bucket and GCRA as that rate with a burst of one limit. Concurrency limits
 * work in flight, not a rate, and a composite is a combination of these, so neither is a lane.
 */
enum Algorithm {
    FIXED_WINDOW("fixed window", Relation.OTHER_RULE),
    SLIDING_WINDOW("sliding window", Relation.APPROXIMATION),
    SLIDING_LOG("sliding log", Relation.EXACT),
    SLIDING_COUNTER("sliding counter", Relation.APPROXIMATION),
    TOKEN_BUCKET("token bucket", Relation.OTHER_RULE),
    GCRA("GCRA", Relation.OTHER_RULE);

    /** How an algorithm's decisions relate to the exact sliding log's. */
    enum Relation {
        /** It is the sliding log. */
        EXACT,
        /** It estimates the sliding log with less state; where it decides otherwise, it errs. */
        APPROXIMATION,
        /** It enforces another rule, so deciding otherwise is its design, not an error. */
        OTHER_RULE
    }

    private final String label;
    private final Relation relation;

    Algorithm(String label, Relation relation) {
        this.label = label;
        this.relation = relation;
    }

    Relation relation() {
        return relation;
    }

    /** The lane's name, e.g. {@code sliding window (6 segments)}. */
    String label(Settings s) {
        return this == SLIDING_WINDOW ? label + " (" + s.segments() + " segments)" : label;
    }

    LimitSpec spec(Settings s) {
        long limit = s.limit();
        Duration window = Duration.ofMillis(s.windowMillis());
        return switch (this) {
            case FIXED_WINDOW -> LimitSpec.fixedWindow(limit, window);
            case SLIDING_WINDOW -> LimitSpec.slidingWindow(limit, window, s.segments());
            case SLIDING_LOG -> LimitSpec.slidingLog(limit, window);
            case SLIDING_COUNTER -> LimitSpec.slidingCounter(limit, window);
            case TOKEN_BUCKET -> {
                // The finest whole-millisecond refill that adds exactly a limit per window.
                long g = gcd(limit, s.windowMillis());
                yield LimitSpec.tokenBucket(limit, limit / g, Duration.ofMillis(s.windowMillis() / g));
            }
            case GCRA -> LimitSpec.gcra(limit, window, limit);
        };
    }

    /** The spec as its factory call, e.g. {@code tokenBucket(100, 1, 600ms)}. */
    String factoryCall(Settings s) {
        String window = Settings.formatDuration(s.windowMillis());
        LimitSpec spec = spec(s);
        return switch (this) {
            case FIXED_WINDOW -> "fixedWindow(" + s.limit() + ", " + window + ")";
            case SLIDING_WINDOW -> "slidingWindow(" + s.limit() + ", " + window + ", " + s.segments() + ")";
            case SLIDING_LOG -> "slidingLog(" + s.limit() + ", " + window + ")";
            case SLIDING_COUNTER -> "slidingCounter(" + s.limit() + ", " + window + ")";
            case TOKEN_BUCKET -> {
                LimitSpec.TokenBucket tb = (LimitSpec.TokenBucket) spec;
                yield "tokenBucket(" + tb.tokenLimit() + ", " + tb.tokensPerPeriod() + ", "
                        + Settings.formatDuration(tb.replenishmentPeriodMillis()) + ")";
            }
            case GCRA -> "gcra(" + s.limit() + ", " + window + ", " + s.limit() + ")";
        };
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
