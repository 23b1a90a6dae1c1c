package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.TOKEN_BUCKET;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.ceilDiv;
import static dev.sluice.limiter.algorithm.Algorithms.header;

import dev.sluice.limiter.LimitSpec;

/**
 * A bucket that starts full and gains {@code tokensPerPeriod} at the end of each whole period since the
 * last refill, capped at the limit. State: tokens, time of the last refill. The refill time advances by
 * whole periods only, so the remainder is never lost and there is no drift however long it runs. A
 * bucket that is full again holds no more tokens than no state, which is when the state expires; the
 * refill phase then restarts at the next request (a fresh bucket's periods start at its first request),
 * which can only delay a refill, never add tokens.
 */
final class TokenBucketStep {
    private static final int TOKENS = HEADER_WORDS;
    private static final int LAST_REFILL = HEADER_WORDS + 1;

    private TokenBucketStep() {}

    static Verdict step(LimitSpec.TokenBucket spec, long[] state, long now, long permits) {
        long capacity = spec.tokenLimit();
        long perPeriod = spec.tokensPerPeriod();
        long period = spec.replenishmentPeriodMillis();
        long tokens = capacity;
        long lastRefill = now;
        if (state != null) {
            tokens = state[TOKENS];
            lastRefill = state[LAST_REFILL];
            long periods = (now - lastRefill) / period;
            if (periods > 0) {
                long periodsToFull = ceilDiv(Math.max(0, capacity - tokens), perPeriod);
                tokens = periods >= periodsToFull ? capacity : tokens + periods * perPeriod;
                lastRefill += periods * period;
            }
            tokens = Math.min(tokens, capacity); // the limit may have been lowered since the state was written
        }
        long resetAfter = untilFull(tokens, capacity, perPeriod, period, lastRefill, now);
        long asked = Math.max(permits, 1);
        if (tokens >= asked) {
            if (permits == 0) {
                return new Verdict(true, tokens, capacity, Verdict.NO_RETRY, resetAfter, 0, resetAfter, state);
            }
            long left = tokens - permits;
            long ttl = untilFull(left, capacity, perPeriod, period, lastRefill, now);
            long[] updated = {header(TOKEN_BUCKET, 0), now, now + ttl, left, lastRefill};
            return new Verdict(true, left, capacity, Verdict.NO_RETRY, ttl, 0, ttl, updated);
        }
        long retryAt = lastRefill + ceilDiv(asked - tokens, perPeriod) * period;
        return new Verdict(false, Math.max(0, tokens), capacity, retryAt - now, resetAfter, 0, resetAfter, state);
    }

    private static long untilFull(long tokens, long capacity, long perPeriod, long period, long lastRefill, long now) {
        if (tokens >= capacity) {
            return 0;
        }
        return lastRefill + ceilDiv(capacity - tokens, perPeriod) * period - now;
    }
}
