package dev.sluice.it.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reading and resetting one key, on every backend: a read answers what the next request for one permit finds, the
 * same from every replica, and consumes nothing; a reset is one step where the key lives, from any replica.
 */
public abstract class InspectContract extends CoreContract {

    static Stream<LimitSpec> timedLimit10() {
        return Specs.timedWithLimit(10).stream();
    }

    @ParameterizedTest
    @MethodSource("limit5")
    void inspect_fromEveryReplica_readsTheSameStateAndConsumesNothing(LimitSpec spec) {
        String name = unique("inspect");
        RateLimiter first = limiter(backend().limiters(), name, spec);
        KeyState fresh = first.inspect();
        assertEquals(5, fresh.remaining());
        assertFalse(fresh.ownState());
        assertFalse(fresh.onOverflowCell());
        assertEquals(backend().clock().instant(), fresh.readAt(), "the store's time");

        Lease three = first.tryAcquire(3);
        assertTrue(three.isAcquired());
        for (var replica : backend().replicas()) {
            for (int i = 0; i < 3; i++) {
                KeyState read = limiter(replica, name, spec).inspect();
                assertEquals(2, read.remaining(), spec.algorithm() + " on " + backend().name());
                assertEquals(5, read.limit());
                assertTrue(read.ownState());
                assertEquals(spec, read.spec());
                assertEquals(Duration.ZERO, read.retryAfter().orElseThrow());
            }
        }
        assertTrue(first.tryAcquire(2).isAcquired(), "the reads took nothing");
        Lease refused = first.tryAcquire(1);
        assertFalse(refused.isAcquired());
        KeyState drained = first.inspect();
        assertEquals(0, drained.remaining());
        assertEquals(refused.retryAfter(), drained.retryAfter());
        three.close();
    }

    @ParameterizedTest
    @MethodSource("limit5")
    void reset_fromAnotherReplica_givesTheWholeBudgetBack(LimitSpec spec) {
        String name = unique("reset");
        RateLimiter first = limiter(backend().limiters(), name, spec);
        Lease all = first.tryAcquire(5);
        assertTrue(all.isAcquired());
        assertFalse(first.tryAcquire(1).isAcquired());
        var replicas = backend().replicas();
        KeyState after = limiter(replicas.get(replicas.size() - 1), name, spec).reset();
        assertEquals(5, after.remaining());
        assertTrue(first.tryAcquire(5).isAcquired(), spec.algorithm() + " on " + backend().name());
        assertFalse(first.tryAcquire(1).isAcquired());
        all.close();
    }

    @ParameterizedTest
    @MethodSource("timedLimit5")
    void resetTo_givenRemaining_grantsExactlyThatMuch(LimitSpec spec) {
        RateLimiter limiter = limiter(backend().limiters(), unique("partly"), spec);
        KeyState after = limiter.reset(2);
        assertEquals(2, after.remaining());
        assertTrue(after.ownState());
        assertEquals(after, limiter.inspect());
        assertTrue(limiter.tryAcquire(2).isAcquired());
        assertFalse(limiter.tryAcquire(1).isAcquired(), spec.algorithm() + " on " + backend().name());
        assertEquals(0, limiter.reset(0).remaining(), "a reset may also take budget away");
    }

    @Test
    void reset_outOfRange_isRefusedNamingTheValue() {
        RateLimiter rate = limiter(backend().limiters(), unique("range"), LimitSpec.slidingLog(5, Duration.ofMinutes(1)));
        IllegalArgumentException above = assertThrows(IllegalArgumentException.class, () -> rate.reset(6));
        assertTrue(above.getMessage().contains("between 0 and 5") && above.getMessage().contains("was 6"),
                above.getMessage());
        assertThrows(IllegalArgumentException.class, () -> rate.reset(-1));
        RateLimiter leases = limiter(backend().limiters(), unique("range"), LimitSpec.concurrency(5, Duration.ofMinutes(1)));
        IllegalArgumentException partial = assertThrows(IllegalArgumentException.class, () -> leases.reset(3));
        assertTrue(partial.getMessage().contains("was 3"), partial.getMessage());
    }

    @Test
    void reset_keyHoldsAnotherAlgorithmsState_throwsAndLeavesIt() {
        String name = unique("foreign");
        RateLimiter tokens = limiter(backend().limiters(), name, LimitSpec.tokenBucket(5, 1, Duration.ofSeconds(1)));
        assertTrue(tokens.tryAcquire(1).isAcquired());
        RateLimiter log = limiter(backend().limiters(), name, LimitSpec.slidingLog(5, Duration.ofSeconds(1)));
        assertThrows(IllegalStateException.class, log::inspect);
        assertThrows(IllegalStateException.class, log::reset);
        assertEquals(4, tokens.inspect().remaining(), "the original state is intact");
    }

    @Test
    void resetPartition_leavesEveryOtherPartition() {
        PartitionedRateLimiter<String> login = backend().limiters().partitioned(unique("login"),
                LimitSpec.fixedWindow(3, Duration.ofMinutes(1)),
                LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build());
        assertTrue(login.tryAcquire("4711", 3).isAcquired());
        assertTrue(login.tryAcquire("4712", 3).isAcquired());
        assertEquals(3, login.reset("4711").remaining());
        assertEquals(0, login.inspect("4712").remaining());
        assertTrue(login.tryAcquire("4711", 3).isAcquired());
    }

    /**
     * Three resets racing 8 threads that acquire from every replica, the clock still: each reset waits until the key
     * reads as drained, so it gives exactly one limit back, and the grants are then exactly 10 + 3 × 10. A reset that
     * lost an acquisition running beside it, or handed out more than the budget it set, would show as any other
     * count.
     */
    @ParameterizedTest
    @MethodSource("timedLimit10")
    void reset_racingAcquisitions_grantsExactlyTheLimitPlusEachResetsGift(LimitSpec spec) throws Exception {
        String name = unique("race");
        List<RateLimiter> limiters = backend().replicas().stream().map(r -> limiter(r, name, spec)).toList();
        RateLimiter operator = limiters.get(limiters.size() - 1);
        int resets = 3;
        AtomicBoolean resetting = new AtomicBoolean(true);
        AtomicInteger granted = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < 8; t++) {
                RateLimiter mine = limiters.get(t % limiters.size());
                futures.add(pool.submit(() -> {
                    start.await();
                    // Until the last reset, and then until that reset's budget is gone.
                    while (resetting.get() || mine.inspect().remaining() > 0) {
                        if (mine.tryAcquire(1).isAcquired()) {
                            granted.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (int r = 0; r < resets; r++) {
                while (operator.inspect().remaining() > 0) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
                assertEquals(10, operator.reset().remaining());
            }
            resetting.set(false);
            for (Future<?> f : futures) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(10 + resets * 10, granted.get(), spec.algorithm() + " on " + backend().name());
        assertEquals(0, operator.inspect().remaining());
    }
}
