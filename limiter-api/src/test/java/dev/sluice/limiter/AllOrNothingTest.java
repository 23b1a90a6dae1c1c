package dev.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link AllOrNothing}: steps asked in order on real in-process limiters, each grant refunded exactly once when
 * a later step stops the sequence, on the blocking shape (every answer at once) and the asynchronous one.
 */
final class AllOrNothingTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00.250Z"));
    private final RateLimiters limiters = LocalRateLimiters.create(clock);
    /** The order in which steps were asked, by index. */
    private final List<Integer> asked = new CopyOnWriteArrayList<>();
    /** Refund calls, by the index of the step whose lease was refunded. */
    private final AtomicInteger[] refunds = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger(),
        new AtomicInteger()};

    @AfterEach
    void close() {
        limiters.close();
    }

    private RateLimiter limiter(String name, long limit) {
        return limiters.limiter(name, LimitSpec.fixedWindow(limit, Duration.ofMinutes(1)));
    }

    /** A step that asks {@code limiter} for one permit and counts the refunds of its lease. */
    private AllOrNothing.Step step(int index, RateLimiter limiter) {
        return () -> {
            asked.add(index);
            return CompletableFuture.completedFuture(new Counted(limiter.tryAcquire(1), refunds[index]));
        };
    }

    @Test
    void everyStepGrants_askedInOrder_leasesHandedOnAndNothingRefunded() {
        List<RateLimiter> links = List.of(limiter("a", 5), limiter("b", 5), limiter("c", 5));
        AllOrNothing.Result result = AllOrNothing.acquire("test",
                List.of(step(0, links.get(0)), step(1, links.get(1)), step(2, links.get(2)))).join();
        assertFalse(result.stopped());
        assertEquals(List.of(0, 1, 2), asked);
        assertEquals(3, result.answers().size());
        for (int i = 0; i < 3; i++) {
            assertTrue(result.leases().get(i).isAcquired());
            assertFalse(result.answers().get(i).refunded());
            assertEquals(0, refunds[i].get());
            assertEquals(4, links.get(i).tryAcquire(0).remaining(), "link " + i + " keeps its grant");
        }
    }

    @Test
    void refusalAtStepTwo_refundsStepsZeroAndOneOnce_andAsksNoFurther() {
        RateLimiter spent = limiter("spent", 1);
        assertTrue(spent.tryAcquire(1).isAcquired());
        RateLimiter a = limiter("a", 5);
        RateLimiter b = limiter("b", 5);
        AllOrNothing.Result result = AllOrNothing.acquire("test",
                List.of(step(0, a), step(1, b), step(2, spent), step(3, limiter("d", 5)))).join();
        assertTrue(result.stopped());
        assertEquals(List.of(0, 1, 2), asked, "the step after the refusal is not asked");
        assertFalse(result.last().lease().isAcquired(), "the refusal is handed on, not refunded");
        assertEquals(List.of(true, true, false), result.answers().stream().map(AllOrNothing.Answer::refunded).toList());
        assertEquals(List.of(1, 1, 0), List.of(refunds[0].get(), refunds[1].get(), refunds[2].get()));
        assertEquals(5, a.tryAcquire(0).remaining());
        assertEquals(5, b.tryAcquire(0).remaining());
    }

    @Test
    void stepThatThrows_orFails_stopsAndRefundsTheEarlierGrantsOnce() {
        RateLimiter a = limiter("a", 5);
        IllegalStateException boom = new IllegalStateException("boom");
        AllOrNothing.Result thrown = AllOrNothing.acquire("test", List.of(step(0, a), () -> {
            throw boom;
        })).join();
        assertTrue(thrown.stopped());
        assertSame(boom, thrown.last().failure());
        assertNull(thrown.last().lease());
        assertEquals(1, refunds[0].get());

        AllOrNothing.Result failed = AllOrNothing.acquire("test", List.of(step(0, a),
                () -> CompletableFuture.supplyAsync(() -> {
                    throw boom;
                }))).join();
        assertSame(boom, failed.last().failure(), "unwrapped from the CompletionException");
        assertEquals(2, refunds[0].get());
        assertEquals(5, a.tryAcquire(0).remaining());
    }

    @Test
    void asyncRefusal_refundsBeforeFinishIsCalled() {
        RateLimiter a = limiter("a", 5);
        CompletableFuture<Lease> second = new CompletableFuture<>();
        CompletableFuture<Boolean> refundAnswer = new CompletableFuture<>();
        List<String> seen = new CopyOnWriteArrayList<>();
        AllOrNothing.Step first = () -> CompletableFuture.completedFuture(
                new Counted(a.tryAcquire(1), refunds[0]) {
                    @Override
                    public CompletableFuture<Boolean> refund() {
                        return super.refund().thenCombine(refundAnswer, (mine, later) -> mine);
                    }
                });
        CompletableFuture<String> out = AllOrNothing.acquire("test", List.of(first, () -> second, step(2, a)),
                result -> {
                    seen.add("finish, refunded=" + result.answers().get(0).refunded());
                    return CompletableFuture.completedFuture("done");
                });
        assertFalse(out.isDone());
        assertEquals(0, refunds[0].get(), "held while the second step is in flight");
        assertEquals(4, a.tryAcquire(0).remaining());

        second.complete(Lease.refused(0, 1, Optional.of(Duration.ofSeconds(1)), Duration.ofSeconds(1)));
        assertEquals(1, refunds[0].get());
        assertTrue(seen.isEmpty() && !out.isDone(), "finish waits for the refund");
        refundAnswer.complete(true);
        assertEquals("done", out.join());
        assertEquals(List.of("finish, refunded=true"), seen);
        assertTrue(asked.isEmpty(), "the third step is never asked");
        assertEquals(5, a.tryAcquire(0).remaining());
    }

    @Test
    void cancelling_cancelsTheStepInFlight_refundsOnce_andAGrantArrivingLateIsRefundedToo() {
        RateLimiter a = limiter("a", 5);
        RateLimiter b = limiter("b", 5);
        CompletableFuture<Lease> inFlight = new CompletableFuture<>();
        CompletableFuture<Lease> out = AllOrNothing.acquire("test", List.of(step(0, a), () -> inFlight),
                result -> CompletableFuture.completedFuture(result.last().lease()));
        assertTrue(out.cancel(false));
        assertTrue(inFlight.isCancelled());
        assertEquals(1, refunds[0].get());
        assertEquals(5, a.tryAcquire(0).remaining());

        CompletableFuture<Lease> deaf = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                return false; // a store that answers anyway
            }
        };
        CompletableFuture<Lease> out2 = AllOrNothing.acquire("test", List.of(step(0, a), () -> deaf),
                result -> CompletableFuture.completedFuture(result.last().lease()));
        out2.cancel(false);
        assertEquals(2, refunds[0].get());
        deaf.complete(new Counted(b.tryAcquire(1), refunds[1]));
        assertEquals(1, refunds[1].get(), "the late grant goes back");
        assertEquals(5, b.tryAcquire(0).remaining());
    }

    @Test
    void finishThatFails_refundsTheGrantsItWasHanded() {
        RateLimiter a = limiter("a", 5);
        CompletableFuture<Object> out = AllOrNothing.acquire("test", List.of(step(0, a), step(1, a)), result -> {
            throw new IllegalStateException("finish failed");
        });
        CompletionException e = assertThrows(CompletionException.class, out::join);
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals(List.of(1, 1), List.of(refunds[0].get(), refunds[1].get()));
        assertEquals(5, a.tryAcquire(0).remaining());
    }

    /** A real lease whose refunds are counted. */
    private static class Counted implements Lease {
        private final Lease lease;
        private final AtomicInteger refunds;

        Counted(Lease lease, AtomicInteger refunds) {
            this.lease = lease;
            this.refunds = refunds;
        }

        @Override public boolean isAcquired() { return lease.isAcquired(); }
        @Override public long remaining() { return lease.remaining(); }
        @Override public long limit() { return lease.limit(); }
        @Override public Optional<Duration> retryAfter() { return lease.retryAfter(); }
        @Override public Duration resetAfter() { return lease.resetAfter(); }
        @Override public boolean isDegraded() { return lease.isDegraded(); }
        @Override public OptionalLong fencingToken() { return lease.fencingToken(); }
        @Override public void close() { lease.close(); }

        @Override
        public CompletableFuture<Boolean> refund() {
            refunds.incrementAndGet();
            return lease.refund();
        }
    }
}
