package dev.sluice.limiter.runtime;

import dev.sluice.limiter.store.RateLimiterRuntime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.store.Coalescer;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Deadlines, retries and failure modes of the shared runtime, against a store that misbehaves on demand. */
final class RuntimeFailureTest {
    private static final LimitSpec SPEC = LimitSpec.fixedWindow(10, Duration.ofMinutes(1));

    private final ControllableStore store = new ControllableStore();
    private final RateLimiters limiters = RateLimiterRuntime.create(store);

    @AfterEach
    void close() {
        limiters.close();
    }

    private RateLimiter limiter(FailureMode mode, int maxRetries) {
        LimiterOptions.Builder options = LimiterOptions.builder().failureMode(mode).maxRetries(maxRetries)
                .decisionTimeout(Duration.ofMillis(200));
        if (mode == FailureMode.LOCAL) {
            options.fallbackReplicas(1); // this store cannot count its replicas
        }
        return limiters.limiter("test", SPEC, options.build());
    }

    @Test
    void tryAcquire_storeNeverAnswers_throwModeThrowsTypedException() {
        store.mode = ControllableStore.Mode.HANG;
        RateLimiter limiter = limiter(FailureMode.THROW, 0);
        DecisionUnavailableException e = assertThrows(DecisionUnavailableException.class, () -> limiter.tryAcquire(1));
        assertEquals("test", e.limiter());
        assertTrue(e.getMessage().contains("no verdict within PT0.2S"), e.getMessage());
        assertEquals(1, limiter.statistics().degraded());
    }

    @Test
    void tryAcquire_storeNeverAnswers_allowModeGrantsDegraded() {
        store.mode = ControllableStore.Mode.HANG;
        Lease lease = limiter(FailureMode.ALLOW, 0).tryAcquire(1);
        assertTrue(lease.isAcquired());
        assertTrue(lease.isDegraded());
        assertTrue(lease.retryAfter().isEmpty());
    }

    @Test
    void tryAcquire_storeNeverAnswers_denyModeRefusesDegraded() {
        store.mode = ControllableStore.Mode.HANG;
        RateLimiter limiter = limiter(FailureMode.DENY, 0);
        Lease lease = limiter.tryAcquire(1);
        assertFalse(lease.isAcquired());
        assertTrue(lease.isDegraded());
        assertEquals(1, limiter.statistics().degraded());
        assertEquals(0, limiter.statistics().refused(), "a degraded refusal is not a store refusal");
    }

    /** Fifty callers on a store that never answers: every one completes, each per the failure mode. */
    @ParameterizedTest
    @EnumSource(FailureMode.class)
    void acquireAsync_storeNeverAnswers_everyCallerCompletesByItsDeadline(FailureMode mode) throws Exception {
        store.mode = ControllableStore.Mode.HANG;
        RateLimiter limiter = limiter(mode, 2);
        List<CompletableFuture<Lease>> futures = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            futures.add(limiter.acquireAsync(1));
        }
        int granted = 0;
        for (CompletableFuture<Lease> f : futures) {
            if (mode == FailureMode.THROW) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
                assertInstanceOf(DecisionUnavailableException.class, e.getCause());
            } else {
                Lease lease = f.get(10, TimeUnit.SECONDS);
                assertTrue(lease.isDegraded());
                assertEquals(mode == FailureMode.LOCAL, lease.isLocalFallback());
                if (mode != FailureMode.LOCAL) {
                    assertEquals(mode == FailureMode.ALLOW, lease.isAcquired());
                }
                granted += lease.isAcquired() ? 1 : 0;
            }
        }
        if (mode == FailureMode.LOCAL) {
            assertEquals(SPEC.limit(), granted, "the one replica's share is the whole limit");
        }
        assertEquals(50, limiter.statistics().degraded());
    }

    @Test
    void tryAcquire_retryableFailures_retriesStopAtMaxRetries() {
        store.mode = ControllableStore.Mode.FAIL_RETRYABLE;
        RateLimiter limiter = limiters.limiter("test", SPEC, LimiterOptions.builder().maxRetries(3)
                .decisionTimeout(Duration.ofSeconds(30)).failureMode(FailureMode.DENY).build());
        Lease lease = limiter.tryAcquire(1);
        assertTrue(lease.isDegraded());
        assertEquals(4, store.calls.get(), "one call and three retries");
    }

    @Test
    void acquireAsync_retryableFailures_retriesStopAtMaxRetries() throws Exception {
        store.mode = ControllableStore.Mode.FAIL_RETRYABLE;
        RateLimiter limiter = limiters.limiter("test", SPEC, LimiterOptions.builder().maxRetries(3)
                .decisionTimeout(Duration.ofSeconds(30)).failureMode(FailureMode.DENY).build());
        assertTrue(limiter.acquireAsync(1).get(10, TimeUnit.SECONDS).isDegraded());
        assertEquals(4, store.calls.get());
    }

    @Test
    void tryAcquire_transientFailureThenSuccess_grantsFromTheStore() {
        store.failuresLeft.set(2);
        Lease lease = limiter(FailureMode.THROW, 2).tryAcquire(1);
        assertTrue(lease.isAcquired());
        assertFalse(lease.isDegraded());
        assertEquals(3, store.calls.get());
        assertEquals(9, lease.remaining());
    }

    /**
     * A concurrency acquisition that ran but whose answer was lost, then retried, left an orphaned lease
     * holding the only permit for its whole duration, and the retry was refused.
     */
    @Test
    void tryAcquire_concurrencyAnswerLostThenRetried_getsTheLeaseItWasGranted() {
        RateLimiter limiter = limiters.limiter("test", LimitSpec.concurrency(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().maxRetries(2).build());
        store.answersToLose.set(1);
        Lease lease = limiter.tryAcquire(1);
        assertTrue(lease.isAcquired(), "the retry is answered with the lease the lost answer carried");
        assertEquals(2, store.calls.get());
        lease.close();
        assertEquals(1, limiter.tryAcquire(0).remaining(), "no orphan holds the permit");
    }

    @Test
    void acquireAsync_concurrencyAnswerLostThenRetried_getsTheLeaseItWasGranted() throws Exception {
        RateLimiter limiter = limiters.limiter("test", LimitSpec.concurrency(2, Duration.ofMinutes(1)),
                LimiterOptions.builder().maxRetries(2).build());
        store.answersToLose.set(1);
        Lease lease = limiter.acquireAsync(2).get(10, TimeUnit.SECONDS);
        assertTrue(lease.isAcquired());
        lease.close();
        assertEquals(2, limiter.tryAcquire(0).remaining());
    }

    @Test
    void tryAcquire_nonRetryableFailure_isNotRetried() {
        store.mode = ControllableStore.Mode.FAIL;
        DecisionUnavailableException e = assertThrows(DecisionUnavailableException.class,
                () -> limiter(FailureMode.THROW, 5).tryAcquire(1));
        assertInstanceOf(IllegalMonitorStateException.class, e.getCause());
        assertEquals(1, store.calls.get());
    }

    /** A key holding another algorithm's state is a usage error: no failure mode hides it. */
    @Test
    void tryAcquire_foreignState_throwsEvenUnderAllow() {
        limiters.limiter("shared", LimitSpec.gcra(1, Duration.ofSeconds(1), 5)).tryAcquire(1);
        RateLimiter other = limiters.limiter("shared", SPEC, LimiterOptions.builder().failureMode(FailureMode.ALLOW)
                .build());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> other.tryAcquire(1));
        assertTrue(e.getMessage().contains("gcra") && e.getMessage().contains("sluice/shared"), e.getMessage());
        assertEquals(1, store.calls.get() - 1, "not retried");
    }

    @ParameterizedTest
    @EnumSource(FailureMode.class)
    void acquireAsync_cancelled_staysCancelledInEveryMode(FailureMode mode) throws Exception {
        store.mode = ControllableStore.Mode.HANG;
        RateLimiter limiter = limiter(mode, 0);
        CompletableFuture<Lease> future = limiter.acquireAsync(1);
        assertTrue(future.cancel(true));
        Thread.sleep(300); // past the 200 ms decision timeout: the failure mode must not overwrite cancellation
        assertTrue(future.isCancelled());
        assertThrows(CancellationException.class, future::join);
    }

    /**
     * A decision that timed out leaves the store's future to answer: a store that queues requests drops an unsent
     * one at the deadline it was given, and the answer of one already sent comes back late, to be given back
     * (see {@code LeaseRefundTest}). Cancelling it would lose that answer and the permits with it.
     */
    @Test
    void acquireAsync_decisionTimesOut_leavesTheStoresFutureToAnswerLate() throws Exception {
        store.mode = ControllableStore.Mode.HANG;
        // Long enough that a loaded machine cannot pass the deadline before the request is even sent.
        RateLimiter limiter = limiters.limiter("test", SPEC, LimiterOptions.builder().failureMode(FailureMode.DENY)
                .maxRetries(0).decisionTimeout(Duration.ofSeconds(2)).build());
        Lease lease = limiter.acquireAsync(1).get(10, TimeUnit.SECONDS);
        assertTrue(lease.isDegraded());
        assertEquals(1, store.hanging.size());
        assertFalse(store.hanging.get(0).isDone(), "its answer may still come");
    }

    /** A caller that cancels while its request waits behind another on its key is never charged: it is not sent. */
    @Test
    void acquireAsync_callerCancelsWhileQueued_isNeverSent() throws Exception {
        // No stall escape a loaded machine could reach between the two calls: the second must queue.
        Coalescer coalescer = new Coalescer(store, new Coalescing(true, Coalescing.DEFAULT_MAX_BATCH_REQUESTS,
                Coalescing.DEFAULT_MAX_BATCH_BYTES, Coalescing.DEFAULT_MAX_QUEUED_PER_KEY, 60_000));
        try (RateLimiters coalesced = RateLimiterRuntime.create(coalescer, "sluice", RuntimeSettings.defaults())) {
            RateLimiter limiter = coalesced.limiter("test", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)),
                    LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).failureMode(FailureMode.DENY)
                            .build());
            store.mode = ControllableStore.Mode.HANG;
            CompletableFuture<Lease> inFlight = limiter.acquireAsync(1);
            CompletableFuture<Lease> queued = limiter.acquireAsync(1);
            assertEquals(1, coalescer.queued());
            assertTrue(queued.cancel(false));
            store.mode = ControllableStore.Mode.NORMAL;
            store.hanging.get(0).complete(dev.sluice.limiter.algorithm.Verdict.of(true, 4, 5, -1, 60_000, 1));
            assertTrue(inFlight.get(10, TimeUnit.SECONDS).isAcquired());
            assertEquals(1, store.calls.get(), "the cancelled request was dropped unsent");
            assertEquals(1, coalescer.dropped());
        }
    }

    /** A release nobody waits for is still worth sending late: it frees permits before the lease expires. */
    @Test
    void close_releaseTimesOut_storesFutureIsNotCancelled() throws Exception {
        RateLimiter limiter = limiters.limiter("test", LimitSpec.concurrency(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().decisionTimeout(Duration.ofMillis(200)).failureMode(FailureMode.DENY)
                        .build());
        Lease lease = limiter.tryAcquire(1);
        store.mode = ControllableStore.Mode.HANG;
        lease.close();
        // Scheduled after the release's timeout on the same scheduler thread: once it fired, so had that one.
        assertTrue(limiter.acquireAsync(1).get(10, TimeUnit.SECONDS).isDegraded());
        assertEquals(2, store.hanging.size());
        assertFalse(store.hanging.get(0).isCancelled(), "the release may still run");
        assertFalse(store.hanging.get(1).isCancelled(), "the acquisition's late answer, if any, is given back");
    }

    @Test
    void acquire_interrupted_throwsAndRemovesWaiter() throws Exception {
        RateLimiter limiter = limiters.limiter("test", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().queueLimit(5).build());
        assertTrue(limiter.tryAcquire(1).isAcquired());
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> limiter.acquire(1, Duration.ofSeconds(30)));
        assertEquals(0, limiter.statistics().queuedPermits());
    }

    /** {@code acquire(1, Duration.ofSeconds(Long.MAX_VALUE))} threw ArithmeticException after queueing the waiter. */
    @Test
    void acquire_maxWaitBeyondLongNanos_waitsAsLongAsItTakes() throws Exception {
        RateLimiter limiter = limiters.limiter("test", LimitSpec.concurrency(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().queueLimit(1).build());
        Lease held = limiter.tryAcquire(1);
        assertTrue(held.isAcquired());
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<Lease> waiting = caller.submit(() -> limiter.acquire(1, Duration.ofSeconds(Long.MAX_VALUE)));
            held.close(); // frees the permit, whether the waiter is queued by now or not
            Lease lease = waiting.get(10, TimeUnit.SECONDS);
            assertTrue(lease.isAcquired());
            assertEquals(0, limiter.statistics().queuedPermits());
            lease.close();
        } finally {
            caller.shutdownNow();
        }
    }

    @Test
    void acquire_maxWaitBeyondLongNanosAndPermitFree_grantsAtOnce() throws Exception {
        RateLimiter limiter = limiter(FailureMode.THROW, 0);
        Lease lease = limiter.acquire(1, Duration.ofSeconds(Long.MAX_VALUE));
        assertTrue(lease.isAcquired());
        assertEquals(9, lease.remaining());
    }

    @Test
    void close_refusesQueuedWaiters() throws Exception {
        RateLimiter limiter = limiters.limiter("test", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().queueLimit(5).build());
        assertTrue(limiter.tryAcquire(1).isAcquired());
        CompletableFuture<Lease> waiting = limiter.acquireAsync(1);
        assertFalse(waiting.isDone());
        limiter.close();
        assertFalse(waiting.get(10, TimeUnit.SECONDS).isAcquired());
        assertFalse(limiter.acquireAsync(1).get(10, TimeUnit.SECONDS).isAcquired(), "closed limiters refuse");
        assertThrows(IllegalStateException.class, () -> limiter.tryAcquire(1));
    }
}
