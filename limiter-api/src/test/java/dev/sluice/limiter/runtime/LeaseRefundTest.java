package dev.sluice.limiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code Lease.refund()} and a concurrency lease's release answer true only when the store gave something back. */
final class LeaseRefundTest {
    private static final LimiterOptions NO_RENEWAL = LimiterOptions.builder().renewInterval(Duration.ofMinutes(59)).build();

    /** A release after {@code RateLimiters.close()} completed with true although nothing reached the store. */
    @Test
    void release_afterTheRuntimeClosed_answersFalse() throws Exception {
        RateLimiters limiters = LocalRateLimiters.create(new ManualClock());
        RateLimiter limiter = limiters.limiter("jobs", LimitSpec.concurrency(2, Duration.ofHours(1)), NO_RENEWAL);
        Lease lease = limiter.tryAcquire(1);
        assertTrue(lease.isAcquired());
        limiters.close();
        assertFalse(lease.refund().get(5, TimeUnit.SECONDS), "nothing was given back after close");
    }

    /** A release of a lease that had already expired in the store completed with true. */
    @Test
    void release_ofALeaseExpiredInTheStore_answersFalse() throws Exception {
        ManualClock clock = new ManualClock();
        RateLimiters limiters = LocalRateLimiters.create(clock);
        try {
            RateLimiter limiter = limiters.limiter("jobs", LimitSpec.concurrency(2, Duration.ofMinutes(1)),
                    LimiterOptions.builder().renewInterval(Duration.ofSeconds(59)).build());
            Lease expired = limiter.tryAcquire(1);
            clock.advance(Duration.ofMinutes(2)); // expired before any renewal ran against the manual clock
            assertFalse(expired.refund().get(5, TimeUnit.SECONDS), "the store held no such lease");
            Lease live = limiter.tryAcquire(1);
            assertTrue(live.refund().get(5, TimeUnit.SECONDS), "a live lease's permits came back");
            assertFalse(live.refund().get(5, TimeUnit.SECONDS), "at most once");
        } finally {
            limiters.close();
        }
    }

    @Test
    void rateRefund_answersTrueOnlyWhenItGaveBack() throws Exception {
        ManualClock clock = new ManualClock();
        RateLimiters limiters = LocalRateLimiters.create(clock);
        RateLimiter limiter = limiters.limiter("mails", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)));
        Lease first = limiter.tryAcquire(1);
        assertTrue(first.refund().get(5, TimeUnit.SECONDS));
        assertEquals(3, limiter.tryAcquire(0).remaining());
        Lease late = limiter.tryAcquire(1);
        clock.advance(Duration.ofMinutes(1)); // another window: the grant no longer counts anywhere
        assertFalse(late.refund().get(5, TimeUnit.SECONDS));
        Lease closed = limiter.tryAcquire(1);
        limiters.close();
        assertFalse(closed.refund().get(5, TimeUnit.SECONDS));
    }

    /**
     * Regression: a refund that the store ran twice (Hazelcast re-runs an invocation whose owner left after
     * running it) gave back twice; and a refund whose answer was lost was never retried.
     */
    @Test
    void refund_runTwiceOrRetriedAfterALostAnswer_givesBackOnce() throws Exception {
        ControllableStore store = new ControllableStore();
        RateLimiters limiters = RateLimiterRuntime.create(store);
        try {
            RateLimiter limiter = limiters.limiter("mails", LimitSpec.slidingLog(5, Duration.ofMinutes(1)),
                    LimiterOptions.builder().maxRetries(3).build());
            Lease two = limiter.tryAcquire(2);
            Lease one = limiter.tryAcquire(1);
            assertTrue(limiter.tryAcquire(2).isAcquired());
            store.stepsToRunTwice.set(1);
            assertTrue(two.refund().get(5, TimeUnit.SECONDS));
            assertEquals(2, limiter.tryAcquire(0).remaining(), "two given back, not four");
            store.answersToLose.set(1);
            assertTrue(one.refund().get(5, TimeUnit.SECONDS), "retried after the lost answer, recognized");
            assertEquals(3, limiter.tryAcquire(0).remaining(), "one given back once");
        } finally {
            limiters.close();
        }
    }

    /**
     * Regression: a grant whose answer arrived after its caller's deadline was only closed, a no-op for a rate
     * grant, so its permits stayed spent for a caller who never got them.
     */
    @Test
    void grantAnsweredAfterTheDeadline_isRefunded_andOneNeverAnsweredGivesNothing() throws Exception {
        ControllableStore store = new ControllableStore();
        RateLimiters limiters = RateLimiterRuntime.create(store);
        try {
            RateLimiter limiter = limiters.limiter("reports", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)),
                    LimiterOptions.builder().decisionTimeout(Duration.ofMillis(30))
                            .failureMode(dev.sluice.limiter.FailureMode.DENY).build());
            RateLimiter concurrent = limiters.limiter("jobs", LimitSpec.concurrency(2, Duration.ofMinutes(1)),
                    LimiterOptions.builder().decisionTimeout(Duration.ofMillis(30))
                            .failureMode(dev.sluice.limiter.FailureMode.DENY).build());
            store.mode = ControllableStore.Mode.ANSWER_LATER;
            Lease gaveUp = limiter.acquireAsync(2).get(5, TimeUnit.SECONDS);
            Lease leaseGaveUp = concurrent.acquireAsync(1).get(5, TimeUnit.SECONDS);
            assertTrue(gaveUp.isDegraded() && leaseGaveUp.isDegraded(), "the deadline passed first: " + gaveUp);
            store.mode = ControllableStore.Mode.NORMAL;
            assertEquals(3, limiter.tryAcquire(0).remaining(), "charged in the store meanwhile");
            store.heldAnswers.forEach(Runnable::run); // the answers arrive, late
            awaitRemaining(limiter, 5);
            awaitRemaining(concurrent, 2);

            store.mode = ControllableStore.Mode.HANG; // an answer that never arrives
            assertTrue(limiter.acquireAsync(1).get(5, TimeUnit.SECONDS).isDegraded());
            store.mode = ControllableStore.Mode.NORMAL;
            assertEquals(5, limiter.tryAcquire(0).remaining());
        } finally {
            limiters.close();
        }
    }

    /**
     * Regression: the blocking path ({@code tryAcquire}) dropped the answer of a grant that arrived after its
     * deadline, so its permits stayed spent for a caller who got a degraded answer (seen on a loaded machine as a key
     * charged three more than it granted after its backup member was killed).
     */
    @Test
    void tryAcquire_grantAnsweredAfterTheDeadline_isRefunded() throws Exception {
        ControllableStore store = new ControllableStore();
        RateLimiters limiters = RateLimiterRuntime.create(store);
        try {
            RateLimiter limiter = limiters.limiter("reports", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)),
                    LimiterOptions.builder().decisionTimeout(Duration.ofMillis(30))
                            .failureMode(dev.sluice.limiter.FailureMode.DENY).build());
            store.mode = ControllableStore.Mode.ANSWER_LATER;
            Lease gaveUp = limiter.tryAcquire(2);
            assertTrue(gaveUp.isDegraded(), "the deadline passed first: " + gaveUp);
            store.mode = ControllableStore.Mode.NORMAL;
            assertEquals(3, limiter.tryAcquire(0).remaining(), "charged in the store meanwhile");
            store.heldAnswers.forEach(Runnable::run); // the answer arrives, late
            awaitRemaining(limiter, 5);
        } finally {
            limiters.close();
        }
    }

    /**
     * Regression: a deadline that passed while the store was still handing the request's future back (the step
     * had run) cancelled that future, so the grant's answer never reached the refund and its permits stayed spent.
     */
    @Test
    void grantWhoseHandOverOutlastedTheDeadline_isRefunded() throws Exception {
        ControllableStore store = new ControllableStore();
        RateLimiters limiters = RateLimiterRuntime.create(store);
        try {
            RateLimiter limiter = limiters.limiter("exports", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)),
                    LimiterOptions.builder().decisionTimeout(Duration.ofMillis(30))
                            .failureMode(dev.sluice.limiter.FailureMode.DENY).build());
            store.mode = ControllableStore.Mode.HAND_OVER_SLOWLY;
            assertTrue(limiter.acquireAsync(2).get(5, TimeUnit.SECONDS).isDegraded());
            store.mode = ControllableStore.Mode.NORMAL;
            assertEquals(3, limiter.tryAcquire(0).remaining(), "charged in the store meanwhile");
            store.heldAnswers.forEach(Runnable::run);
            awaitRemaining(limiter, 5);
        } finally {
            limiters.close();
        }
    }

    private static void awaitRemaining(RateLimiter limiter, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (limiter.tryAcquire(0).remaining() != expected) {
            assertTrue(System.nanoTime() < deadline, limiter.name() + " never got back to " + expected + ", at "
                    + limiter.tryAcquire(0).remaining());
            Thread.sleep(5);
        }
    }
}
