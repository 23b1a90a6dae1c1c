package dev.sluice.prefilter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class AllowanceTest {
    private final ManualClock clock = new ManualClock();
    private final CountingStore store = new CountingStore(clock);
    private final RateLimiters runtime = RateLimiterRuntime.create(store);

    @AfterEach
    void close() {
        runtime.close();
    }

    private PrefilteredRateLimiter wrap(LimitSpec spec) {
        return (PrefilteredRateLimiter) LocalPrefilter.wrap(runtime.limiter("hot", spec),
                PrefilterOptions.builder().mode(PrefilterMode.ALLOWANCE).ticker(Workloads.ticker(clock)).build());
    }

    @Test
    void fourReplicas_heavyDemand_neverExceedTheLimitAndStrandWithinReplicasTimesBatch() throws Exception {
        Workloads.AllowanceRun run = Workloads.allowance(4, 2, 1000, 25, 3, 0.1);
        for (long granted : run.grantedPerWindow()) {
            assertTrue(granted <= run.limit(), () -> "more than the limit in a window: " + run);
            assertTrue(granted >= run.limit() - run.bound(), () -> "more stranded than replicas × batch: " + run);
        }
        assertTrue(run.maxStrandedAtRefusal() < run.bound(), () -> run.toString());
        assertTrue(run.maxPooled() < run.bound(), () -> run.toString());
        assertTrue(run.hopsPerRequest() < 0.05, () -> run.toString());
    }

    @Test
    void batch_growsWhileUsedUpQuickly_upToTheCap() {
        PrefilteredRateLimiter hot = wrap(LimitSpec.fixedWindow(1000, Duration.ofSeconds(10)));
        for (int i = 0; i < 500; i++) {
            assertTrue(hot.tryAcquire().isAcquired());
            clock.advance(Duration.ofMillis(1));
        }
        assertEquals(100, Workloads.pool(hot).batch(hot.key()), "cap = 10% of the limit");
        assertTrue(store.calls.get() < 20, "store calls: " + store.calls.get());
    }

    @Test
    void batch_shrinksAfterIdleness() {
        PrefilteredRateLimiter hot = wrap(LimitSpec.fixedWindow(1000, Duration.ofSeconds(10)));
        for (int i = 0; i < 300; i++) {
            hot.tryAcquire();
            clock.advance(Duration.ofMillis(1));
        }
        long big = Workloads.pool(hot).batch(hot.key());
        while (Workloads.pool(hot).pooled(hot.key()) > 0) {
            hot.tryAcquire();
        }
        clock.advance(Duration.ofMillis(350)); // idle, still within the cached state's lifetime
        hot.tryAcquire();
        assertTrue(Workloads.pool(hot).batch(hot.key()) < big, big + " -> " + Workloads.pool(hot).batch(hot.key()));
    }

    @Test
    void localGrant_saysLocalAndEstimatesRemaining() {
        PrefilteredRateLimiter hot = wrap(LimitSpec.fixedWindow(100, Duration.ofSeconds(1)));
        PrefilterLease first = (PrefilterLease) hot.tryAcquire();
        assertFalse(first.isLocal());
        clock.advance(Duration.ofMillis(1));
        PrefilterLease second = (PrefilterLease) hot.tryAcquire(); // refill of 2 (batch doubled)
        assertFalse(second.isLocal());
        PrefilterLease third = (PrefilterLease) hot.tryAcquire();
        assertTrue(third.isLocal());
        assertTrue(third.isAcquired());
        assertEquals(97, third.remaining(), "the store's remaining at the refill plus what this process holds");
        assertEquals(100, third.limit());
        assertTrue(third.retryAfter().isEmpty());
    }

    @Test
    void pool_neverOutlivesTheWindowItWasTakenIn() {
        PrefilteredRateLimiter hot = wrap(LimitSpec.fixedWindow(100, Duration.ofSeconds(1)));
        for (int i = 0; i < 20; i++) {
            hot.tryAcquire();
        }
        clock.set(java.time.Instant.parse("2030-01-01T00:00:00.999Z"));
        assertEquals(0, Workloads.pool(hot).pooled(hot.key()), "expires before the window's end");
        clock.set(java.time.Instant.parse("2030-01-01T00:00:01Z"));
        PrefilterLease next = (PrefilterLease) hot.tryAcquire();
        assertFalse(next.isLocal(), "the next window starts with a store step");
    }

    @Test
    void refusedBatch_fallsBackToWhatTheStoreHasLeft() {
        RateLimiter other = runtime.limiter("hot", LimitSpec.fixedWindow(10, Duration.ofSeconds(1)));
        PrefilteredRateLimiter hot = wrap(LimitSpec.fixedWindow(10, Duration.ofSeconds(1)));
        assertTrue(other.tryAcquire(9).isAcquired());
        PrefilterLease last = (PrefilterLease) hot.tryAcquire();
        assertTrue(last.isAcquired(), "the last permit is still granted");
        assertFalse(hot.tryAcquire().isAcquired());
    }

    @Test
    void localRefusal_isCachedInAllowanceModeToo() {
        PrefilteredRateLimiter hot = wrap(LimitSpec.fixedWindow(1, Duration.ofSeconds(1)));
        assertTrue(hot.tryAcquire().isAcquired());
        assertFalse(hot.tryAcquire().isAcquired());
        long calls = store.calls.get();
        PrefilterLease local = (PrefilterLease) hot.tryAcquire();
        assertTrue(local.isLocal());
        assertFalse(local.isAcquired());
        assertEquals(calls, store.calls.get());
    }

    @Test
    void refill_afterThePoolExpiredDuringTheHop_keepsTheNewBatchForItsOwnHold() {
        java.util.concurrent.atomic.AtomicLong discarded = new java.util.concurrent.atomic.AtomicLong();
        PrefilteredRateLimiter hot = (PrefilteredRateLimiter) LocalPrefilter.wrap(
                runtime.limiter("hot", LimitSpec.fixedWindow(1000, Duration.ofSeconds(10))),
                PrefilterOptions.builder().mode(PrefilterMode.ALLOWANCE).maxHold(Duration.ofMillis(100))
                        .ticker(Workloads.ticker(clock)).listener(new PrefilterListener() {
                            @Override
                            public void onAllowanceDiscarded(String limiter, long permits) {
                                discarded.addAndGet(permits);
                            }
                        }).build());
        assertTrue(hot.tryAcquire().isAcquired()); // batch 1: nothing pooled
        clock.advance(Duration.ofMillis(1));
        assertTrue(hot.tryAcquire().isAcquired()); // batch 2: one permit pooled until about 100 ms
        assertEquals(1, Workloads.pool(hot).pooled(hot.key()));
        clock.advance(Duration.ofMillis(89));
        store.beforeStep = () -> clock.advance(Duration.ofMillis(20)); // the old pool expires during this hop
        assertTrue(hot.tryAcquire(3).isAcquired()); // asks for a batch of 4: 3 granted, 1 for the pool
        store.beforeStep = () -> {};
        assertEquals(1, Workloads.pool(hot).pooled(hot.key()), "the new permit is held for its own 100 ms");
        assertEquals(1, discarded.get(), "only the expired permit is lost");
        long calls = store.calls.get();
        PrefilterLease next = (PrefilterLease) hot.tryAcquire();
        assertTrue(next.isLocal() && next.isAcquired());
        assertEquals(calls, store.calls.get());
    }

    @Test
    void acquireAsync_grantsFromThePool() {
        PrefilteredRateLimiter hot = wrap(LimitSpec.fixedWindow(100, Duration.ofSeconds(1)));
        assertTrue(hot.acquireAsync(1).join().isAcquired());
        clock.advance(Duration.ofMillis(1));
        assertTrue(hot.acquireAsync(1).join().isAcquired());
        PrefilterLease local = (PrefilterLease) hot.acquireAsync(1).join();
        assertTrue(local.isLocal());
        assertTrue(local.isAcquired());
    }
}
