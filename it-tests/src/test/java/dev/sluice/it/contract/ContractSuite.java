package dev.sluice.it.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.QueueOrder;
import dev.sluice.limiter.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The local queue over a real backend: order, limits in permits, cancellation, bounded waits. The fake
 * clock decides when the store grants; a 2 ms poll interval makes the queue ask again promptly.
 */

public abstract class ContractSuite extends PlansContract {

    private RateLimiter queued(LimitSpec spec, long queueLimit, QueueOrder order) {
        return backend().limiters().limiter(unique("queue"), spec, LimiterOptions.builder().queueLimit(queueLimit)
                .queueOrder(order).pollInterval(Duration.ofMillis(2)).decisionTimeout(Duration.ofSeconds(10)).build());
    }

    private static final LimitSpec ONE_PER_MINUTE = LimitSpec.fixedWindow(1, Duration.ofMinutes(1));

    /** Enqueues one waiter and waits until the limiter reports it queued, so arrival order is certain. */
    private static CompletableFuture<Lease> enqueue(RateLimiter limiter, long permits) {
        long expectQueued = limiter.statistics().queuedPermits() + permits;
        CompletableFuture<Lease> f = limiter.acquireAsync(permits);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!f.isDone() && limiter.statistics().queuedPermits() != expectQueued) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not queued within 30 s");
            }
            Thread.onSpinWait();
        }
        return f;
    }

    /** Moves the clock one window on and waits for exactly one waiter to be granted; returns its index. */
    private int nextGranted(List<CompletableFuture<Lease>> waiters) throws Exception {
        // The waiting set is taken before the clock moves: the grant can land before the next line runs.
        CompletableFuture<?> anyServed = CompletableFuture.anyOf(waiters.stream().filter(f -> !f.isDone())
                .toArray(CompletableFuture[]::new));
        backend().clock().advance(Duration.ofMinutes(1));
        anyServed.get(30, TimeUnit.SECONDS);
        int granted = -1;
        for (int i = 0; i < waiters.size(); i++) {
            CompletableFuture<Lease> f = waiters.get(i);
            if (f.isDone() && !f.isCancelled() && f.join().isAcquired() && !served.contains(i)) {
                granted = i;
            }
        }
        served.add(granted);
        return granted;
    }

    private final List<Integer> served = new ArrayList<>();

    @Test
    void acquireAsync_oldestFirst_servesInArrivalOrder() throws Exception {
        served.clear();
        RateLimiter limiter = queued(ONE_PER_MINUTE, 3, QueueOrder.OLDEST_FIRST);
        assertTrue(limiter.tryAcquire(1).isAcquired());
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiters.add(enqueue(limiter, 1));
        }
        CompletableFuture<Lease> overflow = limiter.acquireAsync(1);
        assertFalse(overflow.get(30, TimeUnit.SECONDS).isAcquired(), "a full queue refuses at once");
        assertEquals(0, nextGranted(waiters));
        assertEquals(1, nextGranted(waiters));
        assertEquals(2, nextGranted(waiters));
        assertEquals(0, limiter.statistics().queuedPermits());
    }

    @Test
    void acquireAsync_newestFirst_servesNewestAndRefusesOldestToMakeRoom() throws Exception {
        served.clear();
        RateLimiter limiter = queued(ONE_PER_MINUTE, 2, QueueOrder.NEWEST_FIRST);
        assertTrue(limiter.tryAcquire(1).isAcquired());
        List<CompletableFuture<Lease>> waiters = new ArrayList<>();
        waiters.add(enqueue(limiter, 1));
        waiters.add(enqueue(limiter, 1));
        waiters.add(limiter.acquireAsync(1));
        Lease evicted = waiters.get(0).get(30, TimeUnit.SECONDS);
        assertFalse(evicted.isAcquired(), "the oldest waiter made room");
        served.add(0);
        assertEquals(2, nextGranted(waiters));
        assertEquals(1, nextGranted(waiters));
    }

    @Test
    void acquireAsync_queueLimitCountsPermitsNotRequests() throws Exception {
        RateLimiter limiter = queued(LimitSpec.fixedWindow(2, Duration.ofMinutes(1)), 3, QueueOrder.OLDEST_FIRST);
        assertTrue(limiter.tryAcquire(2).isAcquired());
        CompletableFuture<Lease> two = enqueue(limiter, 2);
        assertFalse(limiter.acquireAsync(2).get(30, TimeUnit.SECONDS).isAcquired(), "2 + 2 permits exceed 3");
        CompletableFuture<Lease> one = enqueue(limiter, 1);
        assertFalse(one.isDone());
        assertEquals(3, limiter.statistics().queuedPermits());
        backend().clock().advance(Duration.ofMinutes(1));
        assertTrue(two.get(30, TimeUnit.SECONDS).isAcquired());
        assertFalse(one.isDone(), "the window is spent again: the 1-permit waiter keeps waiting");
        assertEquals(1, limiter.statistics().queuedPermits());
    }

    @Test
    void acquireAsync_cancelled_leavesTheQueueAndIsNeverServed() throws Exception {
        RateLimiter limiter = queued(ONE_PER_MINUTE, 2, QueueOrder.OLDEST_FIRST);
        assertTrue(limiter.tryAcquire(1).isAcquired());
        CompletableFuture<Lease> cancelled = enqueue(limiter, 1);
        CompletableFuture<Lease> next = enqueue(limiter, 1);
        assertTrue(cancelled.cancel(false));
        assertEquals(1, limiter.statistics().queuedPermits());
        backend().clock().advance(Duration.ofMinutes(1));
        assertTrue(next.get(30, TimeUnit.SECONDS).isAcquired(), "the permit went to the next waiter");
        assertTrue(cancelled.isCancelled());
    }

    @Test
    void acquire_maxWaitElapses_returnsRefusedAndLeavesNoWaiter() throws Exception {
        RateLimiter limiter = queued(ONE_PER_MINUTE, 2, QueueOrder.OLDEST_FIRST);
        assertTrue(limiter.tryAcquire(1).isAcquired());
        assertFalse(limiter.acquire(1, Duration.ofMillis(50)).isAcquired());
        assertFalse(limiter.acquire(1, Duration.ZERO).isAcquired(), "zero never waits");
        assertEquals(0, limiter.statistics().queuedPermits());
    }

    @Test
    void acquire_grantedWhileWaiting_returnsTheLease() throws Exception {
        RateLimiter limiter = queued(ONE_PER_MINUTE, 2, QueueOrder.OLDEST_FIRST);
        assertTrue(limiter.tryAcquire(1).isAcquired());
        CompletableFuture<Lease> blocking = CompletableFuture.supplyAsync(() -> {
            try {
                return limiter.acquire(1, Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, r -> new Thread(r).start());
        while (limiter.statistics().queuedPermits() == 0) {
            Thread.onSpinWait();
        }
        backend().clock().advance(Duration.ofMinutes(1));
        assertTrue(blocking.get(30, TimeUnit.SECONDS).isAcquired());
    }

    /** A release in this process wakes a queued concurrency waiter at once. */
    @Test
    void acquireAsync_concurrency_releaseServesTheWaiter() throws Exception {
        RateLimiter limiter = backend().limiters().limiter(unique("queue-lease"), LimitSpec.concurrency(1),
                LimiterOptions.builder().queueLimit(1).decisionTimeout(Duration.ofSeconds(10)).build());
        Lease held = limiter.tryAcquire(1);
        assertTrue(held.isAcquired());
        CompletableFuture<Lease> waiter = enqueue(limiter, 1);
        held.close();
        Lease next = waiter.get(30, TimeUnit.SECONDS);
        assertTrue(next.isAcquired());
        assertTrue(next.fencingToken().getAsLong() > held.fencingToken().getAsLong());
        next.close();
    }
}
