package dev.sluice.it.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.Settlement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Settling a lease with its real cost ({@link Lease#settle(long)}), on every backend: a lower cost refunds, a higher
 * one charges, what the budget cannot pay is owed (seen from every replica) and paid before any grant; and from many
 * threads, the charged total exceeds the limit by no more than the extra cost of the settlements still in flight at
 * the last grant.
 */
public abstract class SettleContract extends InspectContract {

    private static Settlement settle(Lease lease, long cost) throws Exception {
        return lease.settle(cost).get(30, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @MethodSource("timedLimit5")
    void settle_lowerRefunds_higherCharges_fromAnyReplica(LimitSpec spec) throws Exception {
        String name = unique("settle");
        RateLimiter limiter = limiter(backend().limiters(), name, spec);
        assertEquals(Settlement.Status.SETTLED, settle(limiter.tryAcquire(3), 1).status());
        assertEquals(Settlement.Status.SETTLED, settle(limiter.tryAcquire(1), 2).status());
        for (RateLimiters replica : backend().replicas()) {
            KeyState read = limiter(replica, name, spec).inspect();
            assertEquals(2, read.remaining(), spec.algorithm() + " on " + backend().name() + ": 1 + 2 charged");
            assertEquals(0, read.debt());
        }
    }

    @ParameterizedTest
    @MethodSource("timedLimit5")
    void settle_beyondTheBudget_isOwedAndPaidBeforeAnyGrant(LimitSpec spec) throws Exception {
        String name = unique("settle-debt");
        RateLimiter limiter = limiter(backend().limiters(), name, spec);
        Lease three = limiter.tryAcquire(3);
        Lease two = limiter.tryAcquire(2);
        Settlement owed = settle(three, 5);
        assertEquals(new Settlement(Settlement.Status.SETTLED, 3, 5, 2), owed, spec + " on " + backend().name());
        List<RateLimiters> replicas = backend().replicas();
        for (RateLimiters replica : replicas) {
            KeyState read = limiter(replica, name, spec).inspect();
            assertEquals(0, read.remaining());
            assertEquals(2, read.debt(), spec.algorithm() + " on " + backend().name());
        }
        RateLimiter other = limiter(replicas.get(replicas.size() - 1), name, spec);
        assertFalse(other.tryAcquire(1).isAcquired());
        assertEquals(Settlement.Status.SETTLED, settle(two, 0).status(), "2 given back");
        assertFalse(other.tryAcquire(1).isAcquired(), "the 2 given back paid the debt first");
        KeyState paid = limiter.inspect();
        assertEquals(0, paid.debt());
        assertEquals(0, paid.remaining());
    }

    @Test
    void settle_twiceOrOnARefusal_isAClearErrorOrNothing() throws Exception {
        RateLimiter limiter = limiter(backend().limiters(), unique("settle-once"), LimitSpec.fixedWindow(2,
                Duration.ofMinutes(1)));
        Lease lease = limiter.tryAcquire(2);
        settle(lease, 1);
        try {
            lease.settle(1);
            throw new AssertionError("a second settlement must throw");
        } catch (IllegalStateException expected) {
            // settled once
        }
        limiter.tryAcquire(1);
        Lease refused = limiter.tryAcquire(1);
        assertEquals(Settlement.Status.NOTHING_HELD, settle(refused, 1).status());
    }

    /**
     * Threads over every replica reserve 1 to 3, work, and settle with a random real cost of 0 to 6, on one window
     * (the clock does not move). The key's consumption afterwards is exactly the sum of the real costs; and that sum
     * exceeds the limit by at most the extra cost of the leases whose settlement had not returned when the last
     * grant was asked for (a superset of those in flight at the store's last grant).
     */
    @Test
    void settle_fromManyThreads_chargesNoMoreThanTheLimitPlusTheSettlementsInFlight() throws Exception {
        long limit = 100;
        LimitSpec spec = LimitSpec.fixedWindow(limit, Duration.ofMinutes(1));
        String name = unique("settle-bound");
        List<RateLimiter> limiters = backend().replicas().stream().map(r -> limiter(r, name, spec)).toList();
        record Work(long asked, long reserved, long cost, long settledAt) {}
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<List<Work>>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                RateLimiter limiter = limiters.get(t % limiters.size());
                futures.add(pool.submit(() -> {
                    start.await();
                    List<Work> done = new ArrayList<>();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < 40; i++) {
                        long reserved = 1 + random.nextLong(3);
                        long asked = System.nanoTime();
                        Lease lease = limiter.tryAcquire(reserved);
                        if (!lease.isAcquired()) {
                            continue;
                        }
                        long cost = random.nextLong(7);
                        assertEquals(Settlement.Status.SETTLED, settle(lease, cost).status());
                        done.add(new Work(asked, reserved, cost, System.nanoTime()));
                    }
                    return done;
                }));
            }
            start.countDown();
            List<Work> all = new ArrayList<>();
            for (Future<List<Work>> f : futures) {
                all.addAll(f.get(120, TimeUnit.SECONDS));
            }
            long charged = all.stream().mapToLong(Work::cost).sum();
            KeyState after = limiters.get(0).inspect();
            assertEquals(charged, limit - after.remaining() + after.debt(),
                    backend().name() + ": the key holds exactly the real costs, in its count and its debt");
            long lastGrantAsked = all.stream().mapToLong(Work::asked).max().orElseThrow();
            long inFlightExtra = all.stream().filter(w -> w.settledAt() > lastGrantAsked)
                    .mapToLong(w -> Math.max(0, w.cost() - w.reserved())).sum();
            assertTrue(charged <= limit + inFlightExtra, backend().name() + ": charged " + charged + ", limit " + limit
                    + ", extra of the settlements in flight at the last grant " + inFlightExtra);
        } finally {
            pool.shutdownNow();
        }
    }
}
