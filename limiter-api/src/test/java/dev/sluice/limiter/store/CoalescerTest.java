package dev.sluice.limiter.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.CoalescingQueueFullException;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The runtime's coalescing over a store that answers only when the test says: which requests travel together, in
 * which order, and what is never sent. The same rules on real Hazelcast members: {@code HazelcastCoalescing*Test}.
 */
final class CoalescerTest {
    private static final LimitSpec SPEC = LimitSpec.fixedWindow(100, Duration.ofMinutes(1));

    /** Holds every call until the test answers it; each request is answered with its permits as the remaining count. */
    private static final class HeldStore implements DecisionStore {
        final List<List<StepRequest>> calls = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<StepOutcomes>> answers = new CopyOnWriteArrayList<>();

        @Override
        public CompletableFuture<StepOutcomes> run(List<StepRequest> requests) {
            calls.add(requests);
            CompletableFuture<StepOutcomes> answer = new CompletableFuture<>();
            answers.add(answer);
            return answer;
        }

        void answer(int call) {
            List<StepRequest> requests = calls.get(call);
            StepOutcomes outcomes = new StepOutcomes(requests.size());
            for (int i = 0; i < requests.size(); i++) {
                outcomes.verdict(i, Verdict.of(true, requests.get(i).permits(), 100, -1, 60_000, 1));
            }
            answers.get(call).complete(outcomes);
        }

        @Override
        public Throwable translate(Throwable failure) {
            return failure instanceof UnsupportedOperationException ? new IllegalMonitorStateException("translated")
                    : failure;
        }
    }

    private static StepRequest acquire(String key, long permits) {
        return new StepRequest(key, SPEC, Op.ACQUIRE, permits, 0, Durability.REPLICATED);
    }

    /**
     * The defaults, but a stall escape no loaded machine reaches: these tests hold a call and expect what arrives
     * behind it to queue, however long the steps between take.
     */
    private static Coalescing unstalled() {
        return bounded(Coalescing.DEFAULT_MAX_QUEUED_PER_KEY);
    }

    private static Coalescing bounded(int maxQueued) {
        return new Coalescing(true, Coalescing.DEFAULT_MAX_BATCH_REQUESTS, Coalescing.DEFAULT_MAX_BATCH_BYTES, maxQueued,
                60_000);
    }

    @Test
    void whileACallIsInFlight_laterRequestsOfItsKeyGoTogether_inArrivalOrder() throws Exception {
        HeldStore store = new HeldStore();
        Coalescer coalescer = new Coalescer(store, unstalled());
        CompletableFuture<Verdict> first = coalescer.submit(acquire("k", 1), Long.MAX_VALUE);
        List<CompletableFuture<Verdict>> queued = new ArrayList<>();
        for (int p = 2; p <= 4; p++) {
            queued.add(coalescer.submit(acquire("k", p), Long.MAX_VALUE));
        }
        CompletableFuture<Verdict> other = coalescer.submit(acquire("other", 9), Long.MAX_VALUE);
        assertEquals(2, store.calls.size(), "the lone request of each key went at once");
        assertEquals(3, coalescer.queued());
        store.answer(0);
        assertEquals(1, first.get(1, TimeUnit.SECONDS).remaining());
        assertEquals(List.of(2L, 3L, 4L), store.calls.get(2).stream().map(StepRequest::permits).toList());
        store.answer(2);
        for (int i = 0; i < 3; i++) {
            assertEquals(i + 2, queued.get(i).get(1, TimeUnit.SECONDS).remaining(), "each its own outcome");
        }
        store.answer(1);
        assertEquals(9, other.get(1, TimeUnit.SECONDS).remaining());
        assertEquals(3, coalescer.calls());
        assertEquals(5, coalescer.decisions());
        assertEquals(0, coalescer.queued());
    }

    @Test
    void coalescingOff_everyRequestIsACallOfItsOwn() {
        HeldStore store = new HeldStore();
        Coalescer coalescer = new Coalescer(store, Coalescing.disabled());
        for (int i = 0; i < 3; i++) {
            coalescer.submit(acquire("k", 1), Long.MAX_VALUE);
        }
        assertEquals(3, store.calls.size());
        assertEquals(0, coalescer.queued());
    }

    /**
     * A call alone on its key leaves nothing behind once answered: the next request of that key is a call of its own,
     * at once, and after a lane came and went the key is alone again.
     */
    @Test
    void aloneOnItsKey_leavesNothingBehind_andTheKeyIsAloneAgainAfterALane() throws Exception {
        HeldStore store = new HeldStore();
        Coalescer coalescer = new Coalescer(store, Coalescing.on());
        CompletableFuture<Verdict> first = coalescer.submit(acquire("k", 1), Long.MAX_VALUE);
        store.answer(0);
        assertEquals(1, first.get(1, TimeUnit.SECONDS).remaining());
        coalescer.submit(acquire("k", 2), Long.MAX_VALUE);
        assertEquals(2, store.calls.size(), "sent at once: nothing was in flight on its key");
        CompletableFuture<Verdict> behind = coalescer.submit(acquire("k", 3), Long.MAX_VALUE);
        assertEquals(1, coalescer.queued());
        store.answer(1);
        assertEquals(3, store.calls.size(), "the request behind the lone call went when it came back");
        store.answer(2);
        assertEquals(3, behind.get(1, TimeUnit.SECONDS).remaining());
        CompletableFuture<Verdict> last = coalescer.submit(acquire("k", 4), Long.MAX_VALUE);
        assertEquals(4, store.calls.size(), "the lane left with its last call: alone again, sent at once");
        store.answer(3);
        assertEquals(4, last.get(1, TimeUnit.SECONDS).remaining());
        assertEquals(0, coalescer.queued());
    }

    @Test
    void fullQueue_failsAtOnce_retryably_andNothingIsSent() {
        HeldStore store = new HeldStore();
        Coalescer coalescer = new Coalescer(store, bounded(2));
        coalescer.submit(acquire("k", 1), Long.MAX_VALUE);
        coalescer.submit(acquire("k", 1), Long.MAX_VALUE);
        coalescer.submit(acquire("k", 1), Long.MAX_VALUE);
        CompletableFuture<Verdict> refused = coalescer.submit(acquire("k", 1), Long.MAX_VALUE);
        ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(1, TimeUnit.SECONDS));
        assertInstanceOf(CoalescingQueueFullException.class, e.getCause());
        assertTrue(coalescer.isRetryable(e.getCause()), "nothing was sent: safe to retry");
        assertEquals(1, store.calls.size());
    }

    @Test
    void cancelledOrPastItsDeadline_whileQueued_isNeverSent() throws Exception {
        HeldStore store = new HeldStore();
        Coalescer coalescer = new Coalescer(store, unstalled());
        coalescer.submit(acquire("k", 1), Long.MAX_VALUE);
        CompletableFuture<Verdict> cancelled = coalescer.submit(acquire("k", 2), Long.MAX_VALUE);
        CompletableFuture<Verdict> late = coalescer.submit(acquire("k", 3), System.nanoTime() - 1);
        CompletableFuture<Verdict> kept = coalescer.submit(acquire("k", 4), Long.MAX_VALUE);
        assertTrue(cancelled.cancel(false));
        store.answer(0);
        ExecutionException e = assertThrows(ExecutionException.class, () -> late.get(1, TimeUnit.SECONDS));
        assertInstanceOf(TimeoutException.class, e.getCause());
        assertEquals(List.of(4L), store.calls.get(1).stream().map(StepRequest::permits).toList());
        store.answer(1);
        assertEquals(4, kept.get(1, TimeUnit.SECONDS).remaining());
        assertEquals(2, coalescer.dropped());
    }

    /** A blocking caller alone on its key waits on the store's own answer and ends the call itself. */
    @Test
    void execute_alone_waitsOnTheStoresAnswer_andGivingUpCancelsNothingSent() throws Exception {
        HeldStore store = new HeldStore();
        Coalescer coalescer = new Coalescer(store, unstalled());
        assertThrows(TimeoutException.class, () -> coalescer.execute(acquire("k", 1),
                TimeUnit.MILLISECONDS.toNanos(20)));
        CompletableFuture<Verdict> behind = coalescer.submit(acquire("k", 2), Long.MAX_VALUE);
        assertEquals(1, coalescer.queued(), "the call of the caller who gave up is still in flight");
        store.answer(0);
        store.answer(1);
        assertEquals(2, behind.get(1, TimeUnit.SECONDS).remaining(), "its lane moved on when the store answered");
    }

    @Test
    void failedCall_failsEachOfItsRequests_translated_andAStepsOwnFailureAnswersAlone() throws Exception {
        HeldStore store = new HeldStore();
        Coalescer coalescer = new Coalescer(store, unstalled());
        CompletableFuture<Verdict> first = coalescer.submit(acquire("k", 1), Long.MAX_VALUE);
        CompletableFuture<Verdict> a = coalescer.submit(acquire("k", 2), Long.MAX_VALUE);
        CompletableFuture<Verdict> b = coalescer.submit(acquire("k", 3), Long.MAX_VALUE);
        store.answers.get(0).completeExceptionally(new UnsupportedOperationException("down"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> first.get(1, TimeUnit.SECONDS));
        assertEquals("translated", e.getCause().getMessage());
        StepOutcomes outcomes = new StepOutcomes(2);
        IllegalStateException own = new IllegalStateException("another algorithm's state");
        outcomes.failure(0, own);
        outcomes.verdict(1, Verdict.of(true, 3, 100, -1, 60_000, 1));
        store.answers.get(1).complete(outcomes);
        assertSame(own, assertThrows(ExecutionException.class, () -> a.get(1, TimeUnit.SECONDS)).getCause());
        assertEquals(3, b.get(1, TimeUnit.SECONDS).remaining());
        assertFalse(coalescer.isRetryable(own));
    }
}
