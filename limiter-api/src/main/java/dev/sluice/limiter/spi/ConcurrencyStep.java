package dev.sluice.limiter.spi;

import static dev.sluice.limiter.spi.Algorithms.CONCURRENCY;
import static dev.sluice.limiter.spi.Algorithms.WORDS;
import static dev.sluice.limiter.spi.Algorithms.header;

import dev.sluice.limiter.LimitSpec;

/**
 * Leases that hold permits until released or expired. State: the last token issued, then one
 * {@code (token, permits, expiresAt)} triple per live lease.
 *
 * <p>A lease's token is its id and a fencing token: tokens increase per key. Since idle state expires
 * and takes the counter with it, a new token is at least {@code now << 20}: the counter can only outrun
 * that floor by issuing over a million leases per millisecond, and an expired state has been idle for at
 * least the lease duration (30 ms or more), so tokens keep increasing across expiry. Releasing the last
 * lease keeps the (then empty) state for one more lease duration for the same reason.
 *
 * <p>An acquisition's {@code leaseId} is a random nonce from the caller; its low 19 bits fill the low
 * bits of the floor. Two sides of a split cluster that grant a lease on the same key in the same
 * millisecond then almost surely issue different tokens, so the merge's union by token keeps both.
 */
final class ConcurrencyStep {
    static final int TOKEN_TIME_SHIFT = 20;
    /** Low bits of the token floor taken from the caller's nonce (below half the per-millisecond room). */
    static final long NONCE_MASK = (1L << (TOKEN_TIME_SHIFT - 1)) - 1;
    private static final int LAST_TOKEN = WORDS;
    private static final int LEASES = WORDS + 1;
    private static final int TRIPLE = 3;

    private ConcurrencyStep() {}

    static Verdict step(LimitSpec.Concurrency spec, long[] state, long now, Op op, long permits, long leaseId) {
        long limit = spec.permitLimit();
        long lastToken = state == null ? 0 : state[LAST_TOKEN];
        int end = state == null ? LEASES : state.length;
        long held = 0;
        int liveLeases = 0;
        int found = -1;
        long latestExpiry = now;
        for (int i = LEASES; i < end; i += TRIPLE) {
            if (state[i + 2] > now) {
                held += state[i + 1];
                liveLeases++;
                latestExpiry = Math.max(latestExpiry, state[i + 2]);
                if (state[i] == leaseId) {
                    found = i;
                }
            }
        }
        long resetAfter = latestExpiry - now;
        switch (op) {
            case ACQUIRE: {
                long asked = Math.max(permits, 1);
                if (held + asked > limit) {
                    return new Verdict(false, Math.max(0, limit - held), limit, Verdict.NO_RETRY, resetAfter, 0,
                            resetAfter, state);
                }
                if (permits == 0) {
                    return new Verdict(true, limit - held, limit, Verdict.NO_RETRY, resetAfter, 0, resetAfter, state);
                }
                long token = Math.max(lastToken + 1, (now << TOKEN_TIME_SHIFT) | (leaseId & NONCE_MASK));
                long expiry = now + spec.leaseDurationMillis();
                long[] updated = copyLive(state, now, liveLeases, 1, -1, token);
                int slot = updated.length - TRIPLE;
                updated[slot] = token;
                updated[slot + 1] = permits;
                updated[slot + 2] = expiry;
                return finish(updated, now, true, limit - held - permits, limit, token, 0);
            }
            case RENEW: {
                if (found < 0) {
                    return new Verdict(false, Math.max(0, limit - held), limit, Verdict.NO_RETRY, resetAfter, 0,
                            resetAfter, state);
                }
                long[] updated = copyLive(state, now, liveLeases, 0, -1, lastToken);
                for (int i = LEASES; i < updated.length; i += TRIPLE) {
                    if (updated[i] == leaseId) {
                        updated[i + 2] = now + spec.leaseDurationMillis();
                    }
                }
                return finish(updated, now, true, limit - held, limit, leaseId, 0);
            }
            default: { // RELEASE
                if (found < 0) {
                    return new Verdict(false, Math.max(0, limit - held), limit, Verdict.NO_RETRY, resetAfter, 0,
                            resetAfter, state);
                }
                long released = state[found + 1];
                long[] updated = copyLive(state, now, liveLeases, -1, leaseId, lastToken);
                // Even with no lease left, the state keeps the last token for a lease duration, so the
                // next token still exceeds it while the clock has not moved on (see the class comment).
                return finish(updated, now, true, limit - held + released, limit, leaseId,
                        spec.leaseDurationMillis());
            }
        }
    }

    /** Copies the live leases, leaving room for {@code extra} more, dropping the lease {@code skip}. */
    private static long[] copyLive(long[] state, long now, int liveLeases, int extra, long skip, long lastToken) {
        long[] updated = new long[LEASES + (liveLeases + extra) * TRIPLE];
        updated[0] = header(CONCURRENCY, 0);
        updated[LAST_TOKEN] = lastToken;
        int to = LEASES;
        if (state != null) {
            for (int i = LEASES; i < state.length; i += TRIPLE) {
                if (state[i + 2] > now && state[i] != skip) {
                    System.arraycopy(state, i, updated, to, TRIPLE);
                    to += TRIPLE;
                }
            }
        }
        return updated;
    }

    private static Verdict finish(long[] updated, long now, boolean granted, long remaining, long limit, long token,
            long minTtl) {
        long latest = now;
        for (int i = LEASES; i < updated.length; i += TRIPLE) {
            latest = Math.max(latest, updated[i + 2]);
        }
        long resetAfter = latest - now;
        long ttl = Math.max(resetAfter, minTtl);
        updated[1] = now;
        updated[2] = now + ttl;
        return new Verdict(granted, remaining, limit, Verdict.NO_RETRY, resetAfter, token, ttl, updated);
    }
}
