package dev.sluice.limiter.spi;

import static dev.sluice.limiter.spi.StepHarness.BASE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.spi.StepHarness.Store;
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
