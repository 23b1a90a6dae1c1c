package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.LAST_NOW;
import static dev.sluice.limiter.algorithm.Algorithms.EXPIRES_AT;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.ceilDiv;
import static dev.sluice.limiter.algorithm.Algorithms.header;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.time.Duration;

/**
 * A bucket that starts full and gains {@code tokensPerPeriod} at the end of each whole period since the
 * last refill, capped at the limit. State: tokens, time of the last refill. The refill time advances by
 * whole periods only, so the remainder is never lost and there is no drift however long it runs. A
 * bucket that is full again holds no more tokens than no state, which is when the state expires; the
 * refill phase then restarts at the next request (a fresh bucket's periods start at its first request),
 * which can only delay a refill, never add tokens.
 */
public final class TokenBucketStep implements Algorithm {
    /** Its state id. */
    static final int ID = 5;
    static final AlgorithmDescription DESCRIPTION = AlgorithmDescription
            .builder(ID, LimitSpec.TOKEN_BUCKET, LimitSpec.TokenBucket.class)
            .summary("starts full, gains tokens in whole periods up to the limit; a steady rate with a bounded"
                    + " burst")
            .parameters(Parameters.permitLimit("tokenLimit", "the bucket's size, the most taken at once",
                            LimitSpec.MAX_LIMIT),
                    AlgorithmDescription.Parameter.count("tokensPerPeriod", "tokens-per-period",
                            AlgorithmDescription.Unit.PERMITS, 1, LimitSpec.MAX_LIMIT, "tokens added each period"),
                    AlgorithmDescription.Parameter.duration("replenishmentPeriod", "replenishment-period",
                            Duration.ofMillis(1), LimitSpec.MAX_DURATION, "time between refills"))
            .factory(v -> new LimitSpec.TokenBucket(v[0], v[1], v[2]),
                    s -> new long[] {s.tokenLimit(), s.tokensPerPeriod(), s.replenishmentPeriodMillis()})
            .rate(AlgorithmDescription.Accuracy.OTHER_RULE, (limit, window, choice) -> {
                // The finest whole-millisecond refill that adds exactly a limit per window.
                long g = gcd(limit, window);
                return new long[] {limit, limit / g, window / g};
            })
            .build();

    private static final int TOKENS = HEADER_WORDS;
    private static final int LAST_REFILL = HEADER_WORDS + 1;

    /** For the service loader. */
    public TokenBucketStep() {}

    @Override
    public AlgorithmDescription description() {
        return DESCRIPTION;
    }

    @Override
    public Verdict run(LimitSpec spec, long[] state, long now, Op op, long permits, long leaseId) {
        return step((LimitSpec.TokenBucket) spec, state, now, permits);
    }

    @Override
    public long[] refunded(LimitSpec spec, long[] state, long now, long permits, long at) {
        return refund((LimitSpec.TokenBucket) spec, state, now, permits, at);
    }

    @Override
    public boolean isWellFormed(long[] state) {
        return state.length == HEADER_WORDS + 2;
    }

    /**
     * {@code [header, lastNow, expiresAt, tokens, lastRefill]}: fewer tokens and a later refill time never
     * hold more tokens than either side at any later time. The bucket is full again (the state expires)
     * as much later than the fewer-tokens side's expiry as the refill time moved.
     */
    @Override
    public long[] merge(long[] a, long[] b) {
        int tokens = HEADER_WORDS;
        int lastRefill = HEADER_WORDS + 1;
        long[] fewer = a[tokens] < b[tokens] || (a[tokens] == b[tokens] && a[lastRefill] >= b[lastRefill]) ? a : b;
        long[] other = fewer == a ? b : a;
        if (fewer[lastRefill] >= other[lastRefill]) {
            return StateMerge.withTimes(fewer, a, b);
        }
        long[] merged = fewer.clone();
        merged[lastRefill] = other[lastRefill];
        merged[EXPIRES_AT] = fewer[EXPIRES_AT] + (other[lastRefill] - fewer[lastRefill]);
        merged[LAST_NOW] = Math.max(a[LAST_NOW], b[LAST_NOW]);
        return merged;
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    static Verdict step(LimitSpec.TokenBucket spec, long[] state, long now, long permits) {
        long capacity = spec.tokenLimit();
        long perPeriod = spec.tokensPerPeriod();
        long period = spec.replenishmentPeriodMillis();
        long tokens = state == null ? capacity : tokensAt(spec, state, now);
        long lastRefill = state == null ? now : lastRefillAt(spec, state, now);
        long resetAfter = untilFull(tokens, capacity, perPeriod, period, lastRefill, now);
        long asked = Math.max(permits, 1);
        // A decision that takes nothing moves the expiry of a bucket written under another refill rate or
        // capacity to when this spec fills it, so its tokens stay spent until this spec's refills give them
        // back; this spec's own state (which expires exactly then) is left as it is.
        long[] kept = state == null || resetAfter <= 0 || state[Algorithms.EXPIRES_AT] == now + resetAfter ? state
                : new long[] {header(ID, 0), now, now + resetAfter, tokens, lastRefill};
        if (tokens >= asked) {
            if (permits == 0) {
                return Verdict.granted(tokens, capacity, resetAfter, 0, resetAfter, kept);
            }
            long left = tokens - permits;
            long ttl = untilFull(left, capacity, perPeriod, period, lastRefill, now);
            long[] updated = {header(ID, 0), now, now + ttl, left, lastRefill};
            return Verdict.granted(left, capacity, ttl, now, ttl, updated);
        }
        long retryAt = lastRefill + ceilDiv(asked - tokens, perPeriod) * period;
        return Verdict.refused(Math.max(0, tokens), capacity, retryAt - now, resetAfter, resetAfter, kept);
    }

    /**
     * Gives back what refills since {@code at} have not already made good: each refill after the grant may
     * have been one that, without the grant, the full bucket would have lost, so {@code permits} less
     * {@code perPeriod} per refill since then. Exact when the refund follows the grant within a period;
     * never more than the bucket would hold had the grant not happened.
     */
    static long[] refund(LimitSpec.TokenBucket spec, long[] state, long now, long permits, long at) {
        long perPeriod = spec.tokensPerPeriod();
        long capacity = spec.tokenLimit();
        long tokens = tokensAt(spec, state, now);
        long lastRefill = lastRefillAt(spec, state, now);
        long refills = lastRefill > at ? ceilDiv(lastRefill - at, spec.replenishmentPeriodMillis()) : 0;
        long give = refills >= ceilDiv(permits, perPeriod) ? 0 : permits - refills * perPeriod;
        if (give == 0 || tokens >= capacity) {
            return state;
        }
        long left = Math.min(capacity, tokens + give);
        long ttl = untilFull(left, capacity, perPeriod, spec.replenishmentPeriodMillis(), lastRefill, now);
        return new long[] {header(ID, 0), now, now + ttl, left, lastRefill};
    }

    /** The tokens of a live state at {@code now}: whole periods refilled, capped at the (maybe lowered) limit. */
    private static long tokensAt(LimitSpec.TokenBucket spec, long[] state, long now) {
        long capacity = spec.tokenLimit();
        long tokens = state[TOKENS];
        long periods = (now - state[LAST_REFILL]) / spec.replenishmentPeriodMillis();
        if (periods > 0) {
            long periodsToFull = ceilDiv(Math.max(0, capacity - tokens), spec.tokensPerPeriod());
            tokens = periods >= periodsToFull ? capacity : tokens + periods * spec.tokensPerPeriod();
        }
        return Math.min(tokens, capacity);
    }

    /** The time of the latest whole-period refill at or before {@code now}. */
    private static long lastRefillAt(LimitSpec.TokenBucket spec, long[] state, long now) {
        long period = spec.replenishmentPeriodMillis();
        return state[LAST_REFILL] + (now - state[LAST_REFILL]) / period * period;
    }

    private static long untilFull(long tokens, long capacity, long perPeriod, long period, long lastRefill, long now) {
        if (tokens >= capacity) {
            return 0;
        }
        return lastRefill + ceilDiv(capacity - tokens, perPeriod) * period - now;
    }
}
