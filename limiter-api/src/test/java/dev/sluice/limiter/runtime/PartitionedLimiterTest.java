package dev.sluice.limiter.runtime;

import dev.sluice.limiter.store.RateLimiterRuntime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class PartitionedLimiterTest {
    private final ControllableStore store = new ControllableStore();
    private final RateLimiters limiters = RateLimiterRuntime.create(store);

    @AfterEach
    void close() {
        limiters.close();
    }

    /** Regression: a limiter named "login/global" and partition "global" of "login" shared one budget. */
    @Test
    void limiterNamedLikeAPartition_hasItsOwnBudget() {
        LimitSpec one = LimitSpec.fixedWindow(1, Duration.ofMinutes(1));
        var global = limiters.limiter("login/global", one, LimiterOptions.defaults());
        PartitionedRateLimiter<String> login = limiters.partitioned("login", one, LimiterOptions.defaults());
        assertNotEquals(global.key(), login.keyOf("global"));
        assertTrue(global.tryAcquire(1).isAcquired());
        assertTrue(login.tryAcquire("global", 1).isAcquired(), "separate budgets");
    }

    @Test
    void keyOf_partitionCannotForgeAnotherPolicysKey() {
        PartitionedRateLimiter<String> a = limiters.partitioned("a", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                LimiterOptions.defaults());
        PartitionedRateLimiter<String> ab = limiters.partitioned("a/b",
                LimitSpec.fixedWindow(1, Duration.ofMinutes(1)), LimiterOptions.defaults());
        assertEquals("sluice/a/b%2Fc", a.keyOf("b/c"));
        assertNotEquals(a.keyOf("b/c"), ab.keyOf("c"));
        assertNotEquals(a.keyOf("%2F"), a.keyOf("/"));
        assertTrue(a.tryAcquire("b/c", 1).isAcquired());
        assertTrue(ab.tryAcquire("c", 1).isAcquired(), "separate budgets");
    }

    @Test
    void partitions_haveSeparateBudgets_andShareStatistics() {
        PartitionedRateLimiter<Integer> perUser = limiters.partitioned("users",
                LimitSpec.fixedWindow(2, Duration.ofMinutes(1)), LimiterOptions.defaults(), id -> "user-" + id);
        assertTrue(perUser.tryAcquire(1, 2).isAcquired());
        assertFalse(perUser.tryAcquire(1, 1).isAcquired());
        assertTrue(perUser.tryAcquire(2, 2).isAcquired());
        assertEquals(2, perUser.statistics().granted());
        assertEquals(1, perUser.statistics().refused());
    }

    /** A million distinct partitions, each queuing a waiter: the runtime keeps at most the bound. */
    @Test
    void busyPartitions_stayBoundedUnderAMillionDistinctPartitions() {
        PartitionedRateLimiter<String> perClient = limiters.partitioned("flood",
                LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().queueLimit(1).pollInterval(Duration.ofSeconds(60)).build());
        PartitionedLimiter<String> impl = (PartitionedLimiter<String>) perClient;
        int queued = 0;
        for (int i = 0; i < 1_000_000; i++) {
            String client = "client-" + i;
            assertTrue(perClient.tryAcquire(client, 1).isAcquired());
            CompletableFuture<Lease> waiter = perClient.acquireAsync(client, 1);
            if (!waiter.isDone()) {
                queued++;
            }
            assertTrue(impl.busyPartitions() <= PartitionedLimiter.MAX_BUSY_PARTITIONS);
        }
        assertEquals(PartitionedLimiter.MAX_BUSY_PARTITIONS, queued, "past the bound, requests do not queue");
        perClient.close();
        assertEquals(0, impl.busyPartitions());
    }

    @Test
    void rateLimitedPartitions_withoutWaitersKeepNothing() {
        PartitionedRateLimiter<String> perClient = limiters.partitioned("plain",
                LimitSpec.tokenBucket(5, 1, Duration.ofSeconds(1)), LimiterOptions.defaults());
        for (int i = 0; i < 10_000; i++) {
            perClient.tryAcquire("c" + i, 1);
            perClient.acquireAsync("c" + i, 1).join();
        }
        assertEquals(0, ((PartitionedLimiter<String>) perClient).busyPartitions());
    }

    /** An asynchronous decision that cannot queue or hold a lease keeps nothing here while it is in flight. */
    @Test
    void asyncDecisionsInFlight_keepAPartitionOnlyWhereTheyCanQueue() {
        store.mode = ControllableStore.Mode.ANSWER_LATER;
        PartitionedLimiter<String> plain = (PartitionedLimiter<String>) limiters.partitioned("plain",
                LimitSpec.tokenBucket(5, 1, Duration.ofSeconds(1)), LimiterOptions.defaults());
        PartitionedLimiter<String> queuing = (PartitionedLimiter<String>) limiters.partitioned("queuing",
                LimitSpec.tokenBucket(5, 1, Duration.ofSeconds(1)), LimiterOptions.builder().queueLimit(1).build());
        java.util.List<CompletableFuture<Lease>> inFlight = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) {
            inFlight.add(plain.acquireAsync("c" + i, 1));
            inFlight.add(queuing.acquireAsync("c" + i, 1));
        }
        assertEquals(0, plain.busyPartitions());
        assertEquals(3, queuing.busyPartitions());
        store.heldAnswers.forEach(Runnable::run);
        inFlight.forEach(f -> assertTrue(f.join().isAcquired()));
        assertEquals(0, queuing.busyPartitions());
    }

    /**
     * Regression: past {@value PartitionedLimiter#MAX_BUSY_PARTITIONS} busy partitions a concurrency lease is held
     * by a partition nobody tracks, and closing the partitioned limiter left it renewing until the runtime closed.
     */
    @Test
    void close_pastTheBusyBound_stopsRenewingUntrackedLeasesToo() throws Exception {
        PartitionedRateLimiter<String> jobs = limiters.partitioned("jobs", LimitSpec.concurrency(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().renewInterval(Duration.ofMillis(100)).build());
        PartitionedLimiter<String> impl = (PartitionedLimiter<String>) jobs;
        for (int i = 0; i < PartitionedLimiter.MAX_BUSY_PARTITIONS; i++) {
            assertTrue(jobs.tryAcquire("tracked-" + i, 1).isAcquired());
        }
        assertTrue(jobs.tryAcquire("untracked", 1).isAcquired());
        assertEquals(PartitionedLimiter.MAX_BUSY_PARTITIONS, impl.busyPartitions(), "the last lease is not tracked");
        String untracked = jobs.keyOf("untracked");
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (!store.renewals.containsKey(untracked)) { // it renews while the limiter is open
            assertTrue(System.nanoTime() < deadline, "the untracked lease never renewed");
            Thread.sleep(10);
        }
        jobs.close();
        int atClose = store.renewals.get(untracked).get();
        String tracked = jobs.keyOf("tracked-0");
        int trackedAtClose = store.renewals.getOrDefault(tracked, new java.util.concurrent.atomic.AtomicInteger()).get();
        Thread.sleep(600); // six renewal intervals
        assertTrue(store.renewals.get(untracked).get() <= atClose + 1,
                "renewed " + (store.renewals.get(untracked).get() - atClose) + " times after close");
        assertTrue(store.renewals.getOrDefault(tracked, new java.util.concurrent.atomic.AtomicInteger()).get()
                <= trackedAtClose + 1, "a tracked lease stopped");
    }
}
