package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.StepHarness.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

final class ConcurrencyStepTest {
    private static final LimitSpec.Concurrency SPEC = new LimitSpec.Concurrency(3, 1_000);

    @Test
    void tryAcquire_grantsLeaseWithToken_refusesWithoutRetryAfterWhenFull() {
        Store store = new Store(SPEC);
        Verdict a = store.acquire(BASE, 2);
        assertTrue(a.granted());
        assertTrue(a.token() > 0);
        assertEquals(1, a.remaining());
        assertEquals(1_000, a.ttlMillis());
        Verdict refused = store.acquire(BASE + 10, 2);
        assertFalse(refused.granted());
        assertEquals(Verdict.NO_RETRY, refused.retryAfterMillis());
        assertEquals(0, refused.token());
        assertEquals(1, refused.remaining());
    }

    @Test
    void release_returnsThePermits() {
        Store store = new Store(SPEC);
        Verdict a = store.acquire(BASE, 2);
        Verdict b = store.acquire(BASE, 1);
        assertFalse(store.peek(BASE + 1, 1).granted());
        Verdict released = store.release(BASE + 1, a.token());
        assertTrue(released.granted());
        assertEquals(2, released.remaining());
        assertTrue(store.copy().acquire(BASE + 1, 2).granted());
        assertFalse(store.release(BASE + 2, a.token()).granted(), "a lease is released once");
        assertTrue(store.release(BASE + 2, b.token()).granted());
        assertTrue(store.acquire(BASE + 2, 3).granted());
    }

    @Test
    void tryAcquire_leaseDurationElapsed_leaseExpires() {
        Store store = new Store(SPEC);
        Verdict a = store.acquire(BASE, 3);
        assertFalse(store.peek(BASE + 999, 1).granted());
        assertTrue(store.peek(BASE + 1_000, 3).granted());
        assertFalse(store.renew(BASE + 1_000, a.token()).granted());
    }

    @Test
    void renew_liveLease_extendsItByLeaseDuration() {
        Store store = new Store(SPEC);
        Verdict a = store.acquire(BASE, 3);
        Verdict renewed = store.renew(BASE + 900, a.token());
        assertTrue(renewed.granted());
        assertEquals(a.token(), renewed.token());
        assertEquals(1_000, renewed.ttlMillis());
        assertFalse(store.peek(BASE + 1_899, 1).granted(), "still held after its first expiry");
        assertTrue(store.peek(BASE + 1_900, 1).granted());
    }

    @Test
    void renew_expiredLease_isRefusedAndNotRecreated() {
        Store store = new Store(SPEC);
        Verdict a = store.acquire(BASE, 2);
        Verdict b = store.acquire(BASE + 500, 1); // keeps the state alive past a's expiry
        long[] before = store.state;
        Verdict renew = store.renew(BASE + 1_000, a.token());
        assertFalse(renew.granted());
        assertSame(before, store.state);
        assertTrue(store.peek(BASE + 1_000, 2).granted(), "a's permits are free");
        assertTrue(store.renew(BASE + 1_100, b.token()).granted());
        assertTrue(store.acquire(BASE + 1_100, 2).granted());
        assertFalse(store.renew(BASE + 1_200, a.token()).granted());
    }

    @Test
    void renewAndRelease_unknownLease_areRefusedWithoutWriting() {
        Store store = new Store(SPEC);
        Verdict a = store.acquire(BASE, 1);
        long[] before = store.state;
        assertFalse(store.renew(BASE + 1, a.token() + 1).granted());
        assertFalse(store.release(BASE + 1, a.token() + 1).granted());
        assertSame(before, store.state);
        assertFalse(new Store(SPEC).renew(BASE, a.token()).granted());
        assertFalse(new Store(SPEC).release(BASE, a.token()).granted());
    }

    /**
     * A retried acquisition whose first run was granted but whose answer was lost (an
     * IndeterminateOperationStateException, a member that left after running it) used to be granted a
     * second lease, or refused, while the first held its permits until it expired.
     */
    @Test
    void acquire_retriedWithTheSameNonce_returnsTheLeaseItWasGranted() {
        Store store = new Store(new LimitSpec.Concurrency(1, 1_000));
        long nonce = 0x5EED_0000_1234_5678L;
        Verdict first = store.run(BASE, Op.ACQUIRE, 1, nonce);
        assertTrue(first.granted());
        long[] stored = store.state;
        Verdict retry = store.run(BASE + 40, Op.ACQUIRE, 1, nonce);
        assertTrue(retry.granted(), "the retry gets the lease its first run was granted");
        assertEquals(first.token(), retry.token());
        assertEquals(0, retry.remaining());
        assertSame(stored, store.state, "nothing new is held: no write, no backup");
        assertFalse(store.run(BASE + 41, Op.ACQUIRE, 1, nonce + 1).granted(), "another caller is still refused");
        assertTrue(store.release(BASE + 42, retry.token()).granted());
        assertTrue(store.peek(BASE + 42, 1).granted(), "one release frees the one lease");
    }

    @Test
    void acquire_retriedAfterItsLeaseExpired_grantsAFreshLeaseWithAHigherToken() {
        Store store = new Store(new LimitSpec.Concurrency(2, 1_000));
        long nonce = 77;
        Verdict first = store.run(BASE, Op.ACQUIRE, 1, nonce);
        store.acquire(BASE + 500, 1); // keeps the state alive past the first lease's expiry
        Verdict retry = store.run(BASE + 1_000, Op.ACQUIRE, 1, nonce);
        assertTrue(retry.granted());
        assertTrue(retry.token() > first.token(), retry.token() + " after " + first.token());
    }

    @Test
    void acquire_sameNonceOtherPermits_isAnotherAcquisition() {
        Store store = new Store(new LimitSpec.Concurrency(3, 1_000));
        Verdict one = store.run(BASE, Op.ACQUIRE, 1, 99);
        Verdict two = store.run(BASE, Op.ACQUIRE, 2, 99);
        assertTrue(two.granted());
        assertTrue(two.token() > one.token());
        assertEquals(0, two.remaining());
    }

    /** Nonce 0 means none: callers that pass no nonce (tests, old clients) get a new lease every time. */
    @Test
    void acquire_nonceZero_neverReturnsAnExistingLease() {
        Store store = new Store(SPEC);
        Verdict a = store.acquire(BASE, 1);
        Verdict b = store.acquire(BASE, 1);
        assertTrue(b.granted());
        assertTrue(b.token() > a.token());
        assertEquals(1, b.remaining());
    }

    /**
     * State written before nonces were kept:
     * {@code [header(layout 1), lastNow, expiresAt, lastToken, (token, permits, expiry)...]}.
     */
    static long[] layout1(long lastNow, long expiresAt, long lastToken, long... triples) {
        long[] state = new long[Algorithms.HEADER_WORDS + 1 + triples.length];
        state[0] = (Algorithms.MAGIC << 48) | ((long) ConcurrencyStep.ID << 40) | (1L << 32);
        state[1] = lastNow;
        state[2] = expiresAt;
        state[3] = lastToken;
        System.arraycopy(triples, 0, state, 4, triples.length);
        return state;
    }

    @Test
    void step_layout1State_isReadAndWrittenBackAsLayout3() {
        long token = BASE << ConcurrencyStep.TOKEN_TIME_SHIFT;
        long[] old = layout1(BASE, BASE + 1_000, token, token, 2, BASE + 1_000);
        Store store = new Store(SPEC, old);
        assertEquals(1, store.peek(BASE + 1, 0).remaining(), "the old lease holds 2 of 3");
        assertFalse(store.run(BASE + 1, Op.ACQUIRE, 2, 5).granted());
        assertSame(old, store.state, "a refusal does not rewrite the old layout");
        Verdict next = store.run(BASE + 2, Op.ACQUIRE, 1, 5);
        assertTrue(next.granted());
        assertTrue(next.token() > token);
        assertEquals(ConcurrencyStep.LAYOUT_VERSION, Algorithms.layoutOf(store.state));
        assertEquals(2, Leases.count(store.state));
        assertTrue(store.renew(BASE + 3, token).granted(), "the old lease is still known by its token");
        assertTrue(store.release(BASE + 4, token).granted());
        assertEquals(2, store.peek(BASE + 4, 0).remaining());
    }

    @Test
    void step_concurrencyLayoutNotYetKnown_throwsNamingTheLayout() {
        long[] future = Algorithms.acquire(SPEC, null, BASE, 1).state().clone();
        future[0] = (future[0] & ~(0xFFL << 32)) | (4L << 32);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Algorithms.acquire(SPEC, future, BASE + 1, 1));
        assertTrue(e.getMessage().contains("layout 4") && e.getMessage().contains("layout 3"), e.getMessage());
    }

    @Test
    void tryAcquire_sameMillisecond_tokensStrictlyIncrease() {
        Store store = new Store(new LimitSpec.Concurrency(1_000, 1_000));
        long last = 0;
        for (int i = 0; i < 1_000; i++) {
            long token = store.acquire(BASE, 1).token();
            assertTrue(token > last);
            last = token;
        }
    }

    /** Releasing the last lease used to remove the entry, so the next lease in that millisecond reused a token. */
    @Test
    void tryAcquire_afterLastLeaseReleasedInSameMillisecond_tokenStillIncreases() {
        Store store = new Store(SPEC);
        Verdict a = store.acquire(BASE, 1);
        assertTrue(store.release(BASE, a.token()).granted());
        Verdict b = store.acquire(BASE, 1);
        assertTrue(b.token() > a.token(), b.token() + " after " + a.token());
    }

    @Test
    void tryAcquire_randomHistoryAcrossExpiryAndRelease_tokensStrictlyIncrease() {
        for (long seed = 1; seed <= 5; seed++) {
            Random rnd = new Random(seed);
            Store store = new Store(new LimitSpec.Concurrency(1 + rnd.nextInt(10), 30 + rnd.nextInt(300)));
            List<Long> live = new ArrayList<>();
            long now = BASE;
            long last = 0;
            int expiries = 0;
            for (int i = 0; i < 20_000; i++) {
                int pause = rnd.nextInt(100);
                now += pause < 90 ? rnd.nextInt(3) : rnd.nextInt(1_000);
                if (store.state != null && now >= Algorithms.expiresAt(store.state)) {
                    expiries++;
                }
                if (!live.isEmpty() && rnd.nextInt(3) == 0) {
                    long id = live.remove(rnd.nextInt(live.size()));
                    store.release(now, id);
                    continue;
                }
                Verdict v = store.acquire(now, 1 + rnd.nextLong(store.spec.limit()));
                if (v.granted()) {
                    assertTrue(v.token() > last, "seed " + seed + ": token " + v.token() + " after " + last);
                    last = v.token();
                    live.add(v.token());
                }
            }
            assertTrue(expiries > 100, "only " + expiries + " expiries");
        }
    }

    @Test
    void tryAcquire_demandOverLimit_neverHoldsMoreThanLimit() {
        Random rnd = new Random(99);
        Store store = new Store(new LimitSpec.Concurrency(10, 200));
        List<long[]> held = new ArrayList<>(); // token, permits, expiry
        long now = BASE;
        for (int i = 0; i < 20_000; i++) {
            now += rnd.nextInt(20);
            long t = now;
            held.removeIf(l -> l[2] <= t);
            if (!held.isEmpty() && rnd.nextInt(4) == 0) {
                long[] lease = held.remove(rnd.nextInt(held.size()));
                assertTrue(store.release(now, lease[0]).granted());
                continue;
            }
            long permits = 1 + rnd.nextInt(4);
            Verdict v = store.acquire(now, permits);
            long inUse = held.stream().mapToLong(l -> l[1]).sum();
            assertEquals(inUse + permits <= 10, v.granted(), "at " + now + " with " + inUse + " held");
            if (v.granted()) {
                held.add(new long[] {v.token(), permits, now + 200});
            }
        }
    }

    /** Retries, some long after their first run, across releases and expiry: one lease each, never over the limit. */
    @Test
    void acquire_randomHistoryWithRetries_retriesReturnTheirLeaseAndNeverExceedTheLimit() {
        Random rnd = new Random(14);
        Store store = new Store(new LimitSpec.Concurrency(10, 200));
        List<long[]> held = new ArrayList<>(); // token, permits, expiry, nonce
        List<long[]> sent = new ArrayList<>(); // nonce, permits of the latest acquisitions, granted or not
        long now = BASE;
        int retriesAnswered = 0;
        for (int i = 0; i < 20_000; i++) {
            now += rnd.nextInt(20);
            long t = now;
            held.removeIf(l -> l[2] <= t);
            long inUse = held.stream().mapToLong(l -> l[1]).sum();
            if (!sent.isEmpty() && rnd.nextInt(4) == 0) {
                long[] request = sent.get(rnd.nextInt(sent.size()));
                long[] live = held.stream().filter(l -> l[3] == request[0]).findFirst().orElse(null);
                Verdict retry = store.run(now, Op.ACQUIRE, request[1], request[0]);
                if (live != null) {
                    assertTrue(retry.granted(), "a retry of a live lease gets it");
                    assertEquals(live[0], retry.token());
                    retriesAnswered++;
                } else {
                    assertEquals(inUse + request[1] <= 10, retry.granted(), "a retry of nothing live acquires");
                    if (retry.granted()) {
                        held.add(new long[] {retry.token(), request[1], now + 200, request[0]});
                    }
                }
                continue;
            }
            if (!held.isEmpty() && rnd.nextInt(4) == 0) {
                long[] lease = held.remove(rnd.nextInt(held.size()));
                assertTrue(store.release(now, lease[0]).granted());
                continue;
            }
            long nonce = rnd.nextLong() | 1;
            long permits = 1 + rnd.nextInt(4);
            Verdict v = store.run(now, Op.ACQUIRE, permits, nonce);
            assertEquals(inUse + permits <= 10, v.granted(), "at " + now + " with " + inUse + " held");
            if (v.granted()) {
                held.add(new long[] {v.token(), permits, now + 200, nonce});
            }
            sent.add(new long[] {nonce, permits});
            if (sent.size() > 50) {
                sent.remove(0);
            }
        }
        assertTrue(retriesAnswered > 100, "only " + retriesAnswered + " retries found their lease");
    }

    @Test
    void tryAcquire_afterStateExpired_tokenStillIncreases() {
        Store store = new Store(SPEC);
        long last = 0;
        for (int i = 0; i < 50; i++) {
            last = store.acquire(BASE, 1 + i % 3).token();
        }
        assertEquals(BASE + 1_000, Algorithms.expiresAt(store.state));
        Verdict after = store.acquire(BASE + 1_000, 1); // the old state reads as absent: the counter is gone
        assertTrue(after.token() > last, after.token() + " after " + last);
    }

    /** Over 2^20 leases in one millisecond push the counter past the time floor of the next millisecond. */
    @Test
    void tryAcquire_counterAheadOfTimeFloorAndLastLeaseReleased_tokenStillIncreases() {
        Store store = new Store(new LimitSpec.Concurrency(1, 1_000));
        long token = 0;
        for (int i = 0; i <= (1 << ConcurrencyStep.TOKEN_TIME_SHIFT) + 5; i++) {
            token = store.acquire(BASE, 1).token();
            assertTrue(store.release(BASE, token).granted());
        }
        Verdict next = store.acquire(BASE + 1, 1);
        assertTrue(next.token() > token, next.token() + " after " + token);
    }
}
