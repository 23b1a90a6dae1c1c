package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.CONCURRENCY;
import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;
import static dev.sluice.limiter.algorithm.Algorithms.header;

import dev.sluice.limiter.LimitSpec;

/**
 * Leases that hold permits until released or expired. State (layout 2): the last token issued, then one
 * {@code (token, permits, expiresAt, nonce)} quadruple per live lease. Layout 1, the same with triples and
 * no nonce, is still read (as nonce 0) and written back as layout 2 by the next step that changes it.
 *
 * <p>A lease's token is its id and a fencing token: tokens increase per key. Since idle state expires
 * and takes the counter with it, a new token is at least {@code now << 20}: the counter can only outrun
 * that floor by issuing over a million leases per millisecond, and an expired state has been idle for at
 * least the lease duration (30 ms or more), so tokens keep increasing across expiry. Releasing the last
 * lease keeps the (then empty) state for one more lease duration for the same reason.
 *
 * <p>An acquisition's {@code leaseId} is a random nonce from the caller, which does two things. Its low 19
 * bits fill the low bits of the token floor: two sides of a split cluster that grant a lease on the same
 * key in the same millisecond then almost surely issue different tokens, so the merge's union by token
 * keeps both. And the lease keeps the whole nonce, which makes an acquisition idempotent: a retry carries
 * the very same request, so when its first run was granted and only the answer was lost (an
 * {@code IndeterminateOperationStateException}, an owner that left after running it, Hazelcast's own
 * at-least-once resend), the retry finds the live lease with its nonce and permits and is answered with
 * it, changing nothing, instead of taking a second lease while the first is orphaned until it expires.
 * Nonce 0 means none (never matched); the runtime never sends it. A false match needs two live
 * acquisitions of one key with the same 64-bit random nonce. What idempotency cannot cover is a caller
 * that stopped waiting before its grant arrived: that lease is never renewed, so it holds its permits
 * for one lease duration at most, and the limit is never exceeded meanwhile.
 *
 * <p>Fencing is unchanged by a retry: it issues no token, and the token it returns was issued before
 * every later one, exactly as if the lost answer had arrived.
 */
final class ConcurrencyStep {
    static final int TOKEN_TIME_SHIFT = 20;
    /** Low bits of the token floor taken from the caller's nonce (below half the per-millisecond room). */
    static final long NONCE_MASK = (1L << (TOKEN_TIME_SHIFT - 1)) - 1;
    static final int LAST_TOKEN = HEADER_WORDS;
    static final int LEASES = HEADER_WORDS + 1;
    /** Words per lease in layout 2: token, permits, expiry, nonce. */
    static final int LEASE = 4;
    /** Words per lease in layout 1: token, permits, expiry. */
    static final int LEGACY_LEASE = 3;
    /** The layout before nonces were kept. */
    static final int LEGACY_LAYOUT = 1;

    private ConcurrencyStep() {}

    /** True if {@code layout} is a concurrency layout this code reads (1 and 2). */
    static boolean isReadable(int layout) {
        return layout == LEGACY_LAYOUT || layout == Algorithms.CONCURRENCY_LAYOUT_VERSION;
    }

    /** Layout 1 state as layout 2, every lease with nonce 0 (unknown); layout 2 state as it is. */
    static long[] upgrade(long[] state) {
        if (Algorithms.layoutOf(state) != LEGACY_LAYOUT) {
            return state;
        }
        int leases = (state.length - LEASES) / LEGACY_LEASE;
        long[] upgraded = new long[LEASES + leases * LEASE];
        System.arraycopy(state, 0, upgraded, 0, LEASES);
        upgraded[0] = header(CONCURRENCY, Algorithms.shapeOf(state));
        for (int j = 0; j < leases; j++) {
            System.arraycopy(state, LEASES + j * LEGACY_LEASE, upgraded, LEASES + j * LEASE, LEGACY_LEASE);
        }
        return upgraded;
    }

    /** Runs one step on layout 2 state (or none); {@link Algorithms#step} upgrades layout 1 first. */
    static Verdict step(LimitSpec.Concurrency spec, long[] state, long now, Op op, long permits, long leaseId) {
        long limit = spec.permitLimit();
        long lastToken = state == null ? 0 : state[LAST_TOKEN];
        int end = state == null ? LEASES : state.length;
        long held = 0;
        int liveLeases = 0;
        int found = -1;
        int retried = -1;
        long latestExpiry = now;
        for (int i = LEASES; i < end; i += LEASE) {
            if (state[i + 2] > now) {
                held += state[i + 1];
                liveLeases++;
                latestExpiry = Math.max(latestExpiry, state[i + 2]);
                if (state[i] == leaseId) {
                    found = i;
                }
                if (op == Op.ACQUIRE && leaseId != 0 && state[i + 3] == leaseId && state[i + 1] == permits) {
                    retried = i;
                }
            }
        }
        long resetAfter = latestExpiry - now;
        switch (op) {
            case ACQUIRE: {
                if (retried >= 0) { // this very request was granted before; its answer was lost
                    return Verdict.lease(true, Math.max(0, limit - held), limit, resetAfter, state[retried], resetAfter,
                            state);
                }
                long asked = Math.max(permits, 1);
                if (held + asked > limit) {
                    return Verdict.lease(false, Math.max(0, limit - held), limit, resetAfter, 0, resetAfter, state);
                }
                if (permits == 0) {
                    return Verdict.lease(true, limit - held, limit, resetAfter, 0, resetAfter, state);
                }
                long token = Math.max(lastToken + 1, (now << TOKEN_TIME_SHIFT) | (leaseId & NONCE_MASK));
                long expiry = now + spec.leaseDurationMillis();
                long[] updated = copyLive(state, now, liveLeases, 1, -1, token);
                int slot = updated.length - LEASE;
                updated[slot] = token;
                updated[slot + 1] = permits;
                updated[slot + 2] = expiry;
                updated[slot + 3] = leaseId;
                return finish(updated, now, Math.max(latestExpiry, expiry), limit - held - permits, limit, token, 0);
            }
            case RENEW: {
                if (found < 0) {
                    return Verdict.lease(false, Math.max(0, limit - held), limit, resetAfter, 0, resetAfter, state);
                }
                long[] updated = copyLive(state, now, liveLeases, 0, -1, lastToken);
                long renewed = now + spec.leaseDurationMillis();
                for (int i = LEASES; i < updated.length; i += LEASE) {
                    if (updated[i] == leaseId) {
                        updated[i + 2] = renewed;
                    }
                }
                return finish(updated, now, Math.max(latestExpiry, renewed), limit - held, limit, leaseId, 0);
            }
            default: { // RELEASE
                if (found < 0) {
                    return Verdict.lease(false, Math.max(0, limit - held), limit, resetAfter, 0, resetAfter, state);
                }
                long released = state[found + 1];
                long[] updated = copyLive(state, now, liveLeases, -1, leaseId, lastToken);
                // Even with no lease left, the state keeps the last token for a lease duration, so the
                // next token still exceeds it while the clock has not moved on (see the class comment).
                return finish(updated, now, latestExpiry(updated, now), limit - held + released, limit, leaseId,
                        spec.leaseDurationMillis());
            }
        }
    }

    /** Copies the live leases, leaving room for {@code extra} more, dropping the lease {@code skip}. */
    private static long[] copyLive(long[] state, long now, int liveLeases, int extra, long skip, long lastToken) {
        long[] updated = new long[LEASES + (liveLeases + extra) * LEASE];
        updated[0] = header(CONCURRENCY, 0);
        updated[LAST_TOKEN] = lastToken;
        int to = LEASES;
        if (state != null) {
            // Kept leases are copied a stretch at a time: most steps drop none or a few.
            int from = -1;
            for (int i = LEASES; i <= state.length; i += LEASE) {
                boolean keep = i < state.length && state[i + 2] > now && state[i] != skip;
                if (keep && from < 0) {
                    from = i;
                } else if (!keep && from >= 0) {
                    System.arraycopy(state, from, updated, to, i - from);
                    to += i - from;
                    from = -1;
                }
            }
        }
        return updated;
    }

    /** The latest expiry of {@code updated}'s leases, or {@code now} when it holds none. */
    private static long latestExpiry(long[] updated, long now) {
        long latest = now;
        for (int i = LEASES; i < updated.length; i += LEASE) {
            latest = Math.max(latest, updated[i + 2]);
        }
        return latest;
    }

    /** A granted verdict on {@code updated}, whose latest lease expires at {@code latest}. */
    private static Verdict finish(long[] updated, long now, long latest, long remaining, long limit, long token,
            long minTtl) {
        long resetAfter = latest - now;
        long ttl = Math.max(resetAfter, minTtl);
        updated[1] = now;
        updated[2] = now + ttl;
        return Verdict.lease(true, remaining, limit, resetAfter, token, ttl, updated);
    }
}
