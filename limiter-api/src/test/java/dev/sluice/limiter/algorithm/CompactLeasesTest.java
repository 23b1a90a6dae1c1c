package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The compact lease layout against the four-words-a-lease concurrency step it replaced, kept here verbatim as the
 * reference: the same verdicts, tokens and live leases on random histories of acquisitions (new ones and retries),
 * probes, renewals, releases, live changes of the lease duration and a clock that sometimes steps back; and a
 * merge of two sides that keeps every lease of both.
 */
final class CompactLeasesTest {
    private static final long[] DURATIONS = {1_000, 1_500, 700};

    @Test
    void randomHistories_decideAsTheFourWordLayoutDid() {
        Random random = new Random(20261204);
        for (int history = 0; history < 60; history++) {
            long limit = random.nextBoolean() ? 3 : 40;
            LimitSpec.Concurrency spec = new LimitSpec.Concurrency(limit, DURATIONS[0]);
            long[] compact = null;
            long[] reference = null;
            long now = BASE;
            List<long[]> granted = new ArrayList<>(); // {token, nonce, permits}
            for (int step = 0; step < 400; step++) {
                if (random.nextInt(40) == 0) {
                    spec = new LimitSpec.Concurrency(limit, DURATIONS[random.nextInt(DURATIONS.length)]);
                }
                now += random.nextInt(10) == 0 ? -random.nextInt(30) : random.nextInt(random.nextBoolean() ? 3 : 120);
                int kind = random.nextInt(10);
                Op op;
                long permits = 0;
                long leaseId;
                if (kind < 5 || granted.isEmpty()) {
                    op = Op.ACQUIRE;
                    permits = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(random.nextBoolean() ? 1 : 3);
                    leaseId = random.nextLong() | 1;
                } else if (kind < 6) {
                    long[] earlier = granted.get(random.nextInt(granted.size())); // a retry, or a nonce reused
                    op = Op.ACQUIRE;
                    permits = random.nextBoolean() ? earlier[2] : Math.min(limit, earlier[2] + 1);
                    leaseId = earlier[1];
                } else {
                    op = kind < 8 ? Op.RENEW : Op.RELEASE;
                    leaseId = granted.get(random.nextInt(granted.size()))[0];
                }
                String at = "history " + history + ", step " + step + ": " + op + " " + permits + " at " + (now - BASE);
                Verdict expected = run(spec, reference, now, op, permits, leaseId);
                Verdict actual = Algorithms.step(spec, compact, now, op, permits, leaseId);
                assertEquals(expected.granted(), actual.granted(), at);
                assertEquals(expected.remaining(), actual.remaining(), at);
                assertEquals(expected.resetAfterMillis(), actual.resetAfterMillis(), at);
                assertEquals(expected.token(), actual.token(), at);
                assertEquals(expected.ttlMillis(), actual.ttlMillis(), at);
                assertEquals(expected.state() == reference, actual.state() == compact, at + ": changed or not");
                reference = expected.state();
                compact = actual.state();
                assertEquals(leases(reference, now), leases(compact, now), at);
                if (op == Op.ACQUIRE && actual.granted() && permits > 0) {
                    granted.add(new long[] {actual.token(), leaseId, permits});
                }
            }
        }
    }

    @Test
    void merge_keepsTheLeasesOfBothSidesInExpiryOrder() {
        LimitSpec.Concurrency spec = new LimitSpec.Concurrency(100, 1_000);
        long[] a = null;
        long[] b = null;
        for (int i = 0; i < 20; i++) {
            a = Algorithms.step(spec, a, BASE + i * 7, Op.ACQUIRE, 1, 11 + i).state();
            b = Algorithms.step(spec, b, BASE + i * 5, Op.ACQUIRE, 2, 1_000 + i).state();
        }
        long[] merged = StateMerge.merge(a, b);
        assertEquals(60, spec.permitLimit() - Algorithms.step(spec, merged, BASE + 200, Op.ACQUIRE, 0, 0).remaining());
        Leases leases = Leases.decode(merged);
        for (int i = 1; i < leases.size; i++) {
            assertTrue(leases.expiries[i - 1] <= leases.expiries[i], "expiry order at " + i);
        }
        Verdict retry = Algorithms.step(spec, merged, BASE + 200, Op.ACQUIRE, 2, 1_007);
        assertTrue(retry.granted());
        assertSame(merged, retry.state(), "a retry found its lease: nothing new is taken");
    }

    /** A merge read the leases of a side without checking its words fit, and failed with an index exception. */
    @Test
    void merge_withAMalformedSide_neverReadsPastItsWords() {
        LimitSpec.Concurrency spec = new LimitSpec.Concurrency(100, 1_000);
        long[] good = null;
        for (int i = 0; i < 20; i++) {
            good = Algorithms.step(spec, good, BASE + i, Op.ACQUIRE, 1, 11 + i).state();
        }
        long[] truncated = Arrays.copyOf(good, good.length - 1);
        for (long[][] pair : new long[][][] {{good, truncated}, {truncated, good}}) {
            long[] merged = StateMerge.merge(pair[0], pair[1]);
            assertTrue(merged == good || merged == truncated, "one side as it is");
        }
    }

    @Test
    void leasesSpreadOverTheirDuration_takeTheirNonceAndAboutTwoBytesEach() {
        LimitSpec.Concurrency spec = new LimitSpec.Concurrency(10_000, 600_000);
        long[] state = null;
        Random random = new Random(7);
        for (int i = 0; i < 9_000; i++) {
            state = Algorithms.step(spec, state, BASE + i * 33L, Op.ACQUIRE, 1, random.nextLong() | 1).state();
        }
        assertEquals(9_000, Leases.count(state));
        assertTrue(state.length * 8L < 9_000 * (8 + 3), state.length + " words");
    }

    /** The live leases, as {@code token:permits:expiry:nonce}, by token. */
    private static List<String> leases(long[] state, long now) {
        List<String> live = new ArrayList<>();
        if (state == null || now >= state[2]) {
            return live;
        }
        long[] upgraded = ConcurrencyStep.upgradeLeases(state);
        Leases leases = Leases.decode(upgraded);
        for (int i = 0; i < leases.size; i++) {
            if (leases.expiries[i] > Math.max(now, state[1])) {
                live.add(leases.tokens[i] + ":" + leases.permits[i] + ":" + leases.expiries[i] + ":"
                        + leases.nonces[i]);
            }
        }
        live.sort(null);
        return live;
    }

    /** The reference as {@link Algorithms} wraps a step: stale state reads as none, time never runs back. */
    private static Verdict run(LimitSpec.Concurrency spec, long[] state, long at, Op op, long permits, long leaseId) {
        long[] current = state;
        long now = at;
        if (current != null) {
            if (now >= current[2]) {
                current = null;
            } else {
                now = Math.max(now, current[1]);
            }
        }
        Verdict v = step(spec, current, now, op, permits, leaseId);
        return v.state() == current && current != state ? v.withState(state, v.ttlMillis()) : v;
    }

    // ---- the four-words-a-lease step, as it was ----

    private static final int TOKEN_TIME_SHIFT = 20;
    private static final long NONCE_MASK = (1L << (TOKEN_TIME_SHIFT - 1)) - 1;
    private static final int LAST_TOKEN = 3;
    private static final int LEASES = 4;
    private static final int LEASE = 4;

    private static long header(int algorithm, int shape) {
        return (Algorithms.MAGIC << 48) | ((long) algorithm << 40) | (2L << 32) | shape;
    }

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
        updated[0] = header(ConcurrencyStep.ID, 0);
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
