package dev.sluice.hazelcast;

import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.CoalescingQueueFullException;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.store.RateLimiterRuntime;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.store.StepRequest;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The coalescer's bounds with a slow owner (one member on a free port, whose clock blocks the next step when
 * armed): a full queue fails fast and retryably, a caller that gave up is never sent, and a stalled hop
 * does not hold up later decisions for more than {@code stallMillis}.
 */
final class HazelcastCoalescingBoundsTest {
    private static final LimitSpec SPEC = LimitSpec.fixedWindow(100, Duration.ofHours(1));
    private static final BlockingClock CLOCK = new BlockingClock();
    private static HazelcastInstance member;

    /**
     * A clock that, when armed, blocks the next step that reads it until released. Only a step: the member's sweep
     * of expired entries reads it too, on a thread of its own, and must neither be blocked nor taken for the step.
     */
    static final class BlockingClock implements InstantSource {
        final AtomicBoolean armed = new AtomicBoolean();
        volatile CountDownLatch release = new CountDownLatch(0);
        volatile CountDownLatch blocked = new CountDownLatch(1);

        void arm() {
            release = new CountDownLatch(1);
            blocked = new CountDownLatch(1);
            armed.set(true);
        }

        @Override
        public Instant instant() {
            if (Thread.currentThread().getName().contains("partition-operation") && armed.compareAndSet(true, false)) {
                blocked.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return Instant.ofEpochMilli(1_700_000_000_000L);
        }
    }

    @BeforeAll
    static void start() {
        Config config = HazelcastCoalescingTest.memberConfig("sluice-coalescing-bounds", FreePorts.take(1), 0);
        config.setProperty("hazelcast.operation.thread.count", "2");
        config.getUserContext().put(SluiceHazelcast.CLOCK_KEY, CLOCK);
        member = Hazelcast.newHazelcastInstance(config);
    }

    @AfterAll
    static void stop() {
        CLOCK.release.countDown();
        if (member != null) {
            member.getLifecycleService().terminate();
        }
    }

    private static CoalescedStore store(int maxQueued, long stallMillis) {
        return new CoalescedStore(member, SluiceHazelcast.DEFAULT_MAP_NAME,
                new Coalescing(true, 128, 32 * 1024, maxQueued, stallMillis));
    }

    private static StepRequest acquire(String key) {
        return new StepRequest(key, SPEC, Op.ACQUIRE, 1, 0, Durability.REPLICATED);
    }

    private static String key(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    @Test
    void fullQueue_failsAtOnceRetryably_andTheQueuedStillRun() throws Exception {
        CoalescedStore store = store(3, 60_000);
        try {
            String key = key("full");
            CLOCK.arm();
            CompletableFuture<Verdict> inFlight = store.submit(acquire(key));
            assertTrue(CLOCK.blocked.await(10, TimeUnit.SECONDS));
            List<CompletableFuture<Verdict>> queued = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                queued.add(store.submit(acquire(key)));
            }
            CompletableFuture<Verdict> refused = store.submit(acquire(key));
            ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(1, TimeUnit.SECONDS));
            assertInstanceOf(CoalescingQueueFullException.class, e.getCause());
            assertTrue(store.coalescer.isRetryable(e.getCause()), "nothing was sent: safe to retry");
            CLOCK.release.countDown();
            assertEquals(99, inFlight.get(10, TimeUnit.SECONDS).remaining());
            for (int i = 0; i < 3; i++) {
                assertEquals(98 - i, queued.get(i).get(10, TimeUnit.SECONDS).remaining(), "in arrival order");
            }
            assertEquals(2, store.coalescer.calls(), "the three queued went as one hop");
        } finally {
            CLOCK.release.countDown();
            store.close();
        }
    }

    @Test
    void cancelledOrTimedOut_whileQueued_isNeverSent() throws Exception {
        CoalescedStore store = store(100, 60_000);
        try {
            String key = key("drop");
            CLOCK.arm();
            CompletableFuture<Verdict> inFlight = store.submit(acquire(key));
            assertTrue(CLOCK.blocked.await(10, TimeUnit.SECONDS));
            CompletableFuture<Verdict> cancelled = store.submit(acquire(key));
            assertTrue(cancelled.cancel(false));
            assertThrows(TimeoutException.class, () -> store.execute(acquire(key), TimeUnit.MILLISECONDS.toNanos(50)));
            CompletableFuture<Verdict> kept = store.submit(acquire(key));
            CLOCK.release.countDown();
            assertEquals(99, inFlight.get(10, TimeUnit.SECONDS).remaining());
            assertEquals(98, kept.get(10, TimeUnit.SECONDS).remaining(), "the two abandoned requests took nothing");
            assertEquals(2, store.coalescer.dropped());
            Verdict probe = store.execute(new StepRequest(key, SPEC, Op.ACQUIRE, 0, 0, Durability.REPLICATED),
                    TimeUnit.SECONDS.toNanos(10));
            assertEquals(98, probe.remaining());
        } finally {
            CLOCK.release.countDown();
            store.close();
        }
    }

    /**
     * Asynchronous callers that gave up while queued behind a busy partition used to be charged once it
     * answered: 6 timed out and 3 cancelled took 9 of 10 permits (acquireAsync passed no deadline, and
     * neither the decision's timeout nor the caller's cancel reached the coalescer).
     */
    @Test
    void acquireAsync_timedOutOrCancelledWhileQueued_consumesNothing() throws Exception {
        CoalescedStore store = store(100, 60_000);
        try (RateLimiters limiters = store.limiters()) {
            String name = key("async-abandoned");
            LimitSpec spec = LimitSpec.fixedWindow(10, Duration.ofHours(1));
            RateLimiter patient = limiters.limiter(name, spec,
                    LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).build());
            RateLimiter impatient = limiters.limiter(name, spec, LimiterOptions.builder()
                    .decisionTimeout(Duration.ofMillis(100)).failureMode(FailureMode.DENY).build());
            CLOCK.arm();
            CompletableFuture<Lease> inFlight = patient.acquireAsync(1);
            assertTrue(CLOCK.blocked.await(10, TimeUnit.SECONDS));
            List<CompletableFuture<Lease>> timedOut = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                timedOut.add(impatient.acquireAsync(1));
            }
            List<CompletableFuture<Lease>> cancelled = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                CompletableFuture<Lease> f = impatient.acquireAsync(1);
                assertTrue(f.cancel(true));
                cancelled.add(f);
            }
            for (CompletableFuture<Lease> f : timedOut) {
                Lease lease = f.get(10, TimeUnit.SECONDS);
                assertTrue(lease.isDegraded() && !lease.isAcquired(), "a degraded refusal after 100 ms: " + lease);
            }
            assertEquals(9, store.coalescer.queued(), "all nine still wait behind the busy hop");
            CLOCK.release.countDown();
            assertEquals(9, inFlight.get(10, TimeUnit.SECONDS).remaining());
            assertEquals(9, patient.tryAcquire(0).remaining(), "only the decision in flight took a permit");
            assertEquals(9, store.coalescer.dropped(), "the nine that gave up were never sent");
            cancelled.forEach(f -> assertTrue(f.isCancelled()));
        } finally {
            CLOCK.release.countDown();
        }
    }

    /**
     * Lanes are per key: a decision on another key is sent at once even in the very partition whose step is
     * blocked (it waits on the owner's partition thread, not in Sluice's queue); only the slow key's own
     * decisions queue, and past {@code stallMillis} they are sent anyway.
     */
    @Test
    void slowKey_holdsBackOnlyItsOwnDecisions_andStallMillisSendsThemAnyway() throws Exception {
        // Long enough that the steps before the first queued decision never take it on a loaded machine.
        long stallMillis = 1_500;
        CoalescedStore store = store(100, stallMillis);
        try {
            String slow = key("stall-slow");
            int slowPartition = member.getPartitionService().getPartition(slow).getPartitionId();
            String other;
            do { // a key on the other partition thread, which the blocked step does not hold
                other = key("stall-other");
            } while (member.getPartitionService().getPartition(other).getPartitionId() % 2 == slowPartition % 2);
            String sibling;
            do { // another key in the slow partition
                sibling = key("stall-sibling");
            } while (member.getPartitionService().getPartition(sibling).getPartitionId() != slowPartition);
            CLOCK.arm();
            CompletableFuture<Verdict> stalled = store.submit(acquire(slow));
            assertTrue(CLOCK.blocked.await(10, TimeUnit.SECONDS));

            assertEquals(99, store.submit(acquire(other)).get(10, TimeUnit.SECONDS).remaining(),
                    "another partition's decision is not held back");
            CompletableFuture<Verdict> neighbour = store.submit(acquire(sibling));
            assertEquals(0, store.coalescer.queued(), "another key of the slow partition is sent, not queued");
            assertEquals(3, store.coalescer.calls());
            CompletableFuture<Verdict> early = store.submit(acquire(slow)); // queued behind the stalled hop
            assertEquals(1, store.coalescer.queued());
            Thread.sleep(stallMillis + 50);
            CompletableFuture<Verdict> late = store.submit(acquire(slow)); // the stall is noticed: both go
            assertEquals(0, store.coalescer.queued(), "sent as an extra hop after stallMillis");
            assertEquals(1, store.coalescer.stalls());
            assertEquals(4, store.coalescer.calls(), "the two went as one hop");
            CLOCK.release.countDown();
            assertEquals(99, stalled.get(10, TimeUnit.SECONDS).remaining());
            assertEquals(99, neighbour.get(10, TimeUnit.SECONDS).remaining());
            assertEquals(98, early.get(10, TimeUnit.SECONDS).remaining());
            assertEquals(97, late.get(10, TimeUnit.SECONDS).remaining(), "in arrival order");
            // Every hop came back: the lane is idle again, a lone decision goes at once.
            assertEquals(96, store.submit(acquire(slow)).get(10, TimeUnit.SECONDS).remaining());
            assertEquals(0, store.coalescer.queued());
        } finally {
            CLOCK.release.countDown();
            store.close();
        }
    }
}
