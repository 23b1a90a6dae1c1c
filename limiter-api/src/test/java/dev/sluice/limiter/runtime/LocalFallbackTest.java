package dev.sluice.limiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FailureMode#LOCAL} on a fake ticker (which the local decisions' clock follows) over a store that fails on
 * demand: the share decided, the store left alone for the retry interval, the switch back, the replicas' sources.
 */
final class LocalFallbackTest {
    private static final LimitSpec TEN_A_MINUTE = LimitSpec.fixedWindow(10, Duration.ofMillis(60_500));

    private final AtomicLong nanos = new AtomicLong(TimeUnit.DAYS.toNanos(20_000));
    private final ControllableStore store = new ControllableStore();
    private final DefaultRateLimiters limiters = (DefaultRateLimiters) RateLimiterRuntime.create(store, "sluice",
            RuntimeSettings.defaults().withTicker(nanos::get), Coalescing.disabled());

    @AfterEach
    void close() {
        limiters.close();
    }

    private void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
    }

    private static LimiterOptions.Builder local() {
        return LimiterOptions.builder().failureMode(FailureMode.LOCAL).maxRetries(0)
                .decisionTimeout(Duration.ofMillis(200));
    }

    private RateLimiter limiter(LimitSpec spec, LimiterOptions options) {
        return limiters.limiter("login", spec, options);
    }

    private static int granted(RateLimiter limiter, int asks) {
        int granted = 0;
        for (int i = 0; i < asks; i++) {
            Lease lease = limiter.tryAcquire(1);
            assertTrue(lease.isDegraded() && lease.isLocalFallback(), "not local: " + lease);
            granted += lease.isAcquired() ? 1 : 0;
        }
        return granted;
    }

    @Test
    void storeAway_decidesOnTheShare_degradedAndLocal() {
        store.mode = ControllableStore.Mode.FAIL;
        RateLimiter limiter = limiter(TEN_A_MINUTE, local().fallbackReplicas(3).build());
        Lease first = limiter.tryAcquire(1);
        assertTrue(first.isAcquired() && first.isDegraded() && first.isLocalFallback(), first.toString());
        assertEquals(3, first.limit(), "10 over 3 replicas");
        assertEquals(2, first.remaining());
        assertEquals(2, granted(limiter, 5));
        Lease refused = limiter.tryAcquire(1);
        assertFalse(refused.isAcquired());
        assertTrue(refused.retryAfter().isPresent(), "the share knows when its window ends: " + refused);
        assertEquals(1, store.calls.get(), "within the retry interval the store is not asked again");
        assertEquals(7, limiter.statistics().degraded());
    }

    @Test
    void afterTheRetryInterval_oneCallerAsksTheStore_stillAway_localStateKept() {
        store.mode = ControllableStore.Mode.FAIL;
        RateLimiter limiter = limiter(TEN_A_MINUTE, local().fallbackReplicas(3).build());
        assertEquals(3, granted(limiter, 3));
        advance(LocalFallback.RETRY_INTERVAL);
        assertEquals(0, granted(limiter, 3), "the share spent before the store was asked again stays spent");
        assertEquals(2, store.calls.get(), "one caller asked the store after the interval, the others did not");
    }

    @Test
    void storeBack_decidesAgain_localStateDropped() {
        store.mode = ControllableStore.Mode.FAIL;
        RateLimiter limiter = limiter(TEN_A_MINUTE, local().fallbackReplicas(3).build());
        assertEquals(3, granted(limiter, 4));
        store.mode = ControllableStore.Mode.NORMAL;
        advance(LocalFallback.RETRY_INTERVAL);
        Lease fromStore = limiter.tryAcquire(1);
        assertTrue(fromStore.isAcquired() && !fromStore.isDegraded() && !fromStore.isLocalFallback(), fromStore.toString());
        assertEquals(10, fromStore.limit());
        assertFalse(limiters.fallback.isAway());
        store.mode = ControllableStore.Mode.FAIL;
        assertEquals(3, granted(limiter, 4), "a new outage starts from nothing: the last one's state was dropped");
    }

    @Test
    void asyncAcquisition_decidesLocally() throws Exception {
        store.mode = ControllableStore.Mode.FAIL;
        RateLimiter limiter = limiter(TEN_A_MINUTE, local().fallbackReplicas(5).build());
        for (int i = 0; i < 2; i++) {
            Lease lease = limiter.acquireAsync(1).get(5, TimeUnit.SECONDS);
            assertTrue(lease.isAcquired() && lease.isLocalFallback(), lease.toString());
        }
        Lease third = limiter.acquireAsync(1).get(5, TimeUnit.SECONDS);
        assertFalse(third.isAcquired());
        assertTrue(third.isLocalFallback());
    }

    @Test
    void shareOfZero_refusesEverything() {
        store.mode = ControllableStore.Mode.FAIL;
        RateLimiter limiter = limiter(LimitSpec.fixedWindow(2, Duration.ofMillis(60_500)), local().fallbackReplicas(3)
                .build());
        Lease lease = limiter.tryAcquire(1);
        assertFalse(lease.isAcquired());
        assertTrue(lease.isDegraded() && lease.isLocalFallback());
        assertEquals(0, lease.limit());
    }

    @Test
    void moreThanTheShare_refused() {
        store.mode = ControllableStore.Mode.FAIL;
        RateLimiter limiter = limiter(TEN_A_MINUTE, local().fallbackReplicas(3).build());
        Lease lease = limiter.tryAcquire(5);
        assertFalse(lease.isAcquired(), "5 permits of a share of 3");
        assertTrue(lease.isLocalFallback());
    }

    @Test
    void composite_eachComponentsShare() {
        store.mode = ControllableStore.Mode.FAIL;
        LimitSpec spec = LimitSpec.allOf(LimitSpec.fixedWindow(100, Duration.ofMillis(60_500)),
                LimitSpec.tokenBucket(6, 2, Duration.ofMillis(60_500)));
        RateLimiter limiter = limiter(spec, local().fallbackReplicas(2).build());
        assertEquals(3, granted(limiter, 10), "the bucket's 6 over 2 replicas");
    }

    @Test
    void concurrency_shareOfLeases_releaseGivesBack() {
        store.mode = ControllableStore.Mode.FAIL;
        RateLimiter limiter = limiter(LimitSpec.concurrency(4, Duration.ofSeconds(30)), local().fallbackReplicas(2)
                .build());
        Lease a = limiter.tryAcquire(1);
        Lease b = limiter.tryAcquire(1);
        assertTrue(a.isAcquired() && b.isAcquired() && a.isLocalFallback());
        assertFalse(limiter.tryAcquire(1).isAcquired(), "4 leases over 2 replicas");
        a.close();
        assertTrue(limiter.tryAcquire(1).isAcquired(), "a released local lease frees its permit");
    }

    @Test
    void refund_givesBackToTheShare() throws Exception {
        store.mode = ControllableStore.Mode.FAIL;
        RateLimiter limiter = limiter(TEN_A_MINUTE, local().fallbackReplicas(3).build());
        Lease lease = limiter.tryAcquire(3);
        assertTrue(lease.isAcquired());
        assertFalse(limiter.tryAcquire(1).isAcquired());
        assertTrue(lease.refund().get(5, TimeUnit.SECONDS));
        assertTrue(limiter.tryAcquire(1).isAcquired());
    }

    @Test
    void partitions_eachHaveTheirShare() {
        store.mode = ControllableStore.Mode.FAIL;
        PartitionedRateLimiter<String> perClient = limiters.partitioned("login", TEN_A_MINUTE,
                local().fallbackReplicas(3).build(), Function.identity());
        for (String client : List.of("alice", "bob")) {
            int granted = 0;
            for (int i = 0; i < 5; i++) {
                granted += perClient.tryAcquire(client, 1).isAcquired() ? 1 : 0;
            }
            assertEquals(3, granted, client);
        }
    }

    @Test
    void membersWhenTheStoreLastAnswered_giveTheReplicas() {
        store.members = 4;
        RateLimiter limiter = limiter(TEN_A_MINUTE, local().build());
        assertFalse(limiter.tryAcquire(1).isDegraded());
        store.members = 1; // what a cut-off member sees once the others are gone
        store.mode = ControllableStore.Mode.FAIL;
        Lease lease = limiter.tryAcquire(1);
        assertTrue(lease.isLocalFallback());
        assertEquals(2, lease.limit(), "10 over the 4 members seen when the store last answered");
    }

    @Test
    void configuredAndMembers_theLargerDecides() {
        store.members = 4;
        RateLimiter five = limiters.limiter("five", TEN_A_MINUTE, local().fallbackReplicas(5).build());
        RateLimiter two = limiters.limiter("two", TEN_A_MINUTE, local().fallbackReplicas(2).build());
        assertFalse(five.tryAcquire(1).isDegraded());
        store.mode = ControllableStore.Mode.FAIL;
        assertEquals(2, five.tryAcquire(1).limit(), "10 over 5 configured");
        assertEquals(2, two.tryAcquire(1).limit(), "10 over 4 members");
    }

    @Test
    void neverAnswered_noReplicasConfigured_refuses() {
        store.members = 3;
        store.mode = ControllableStore.Mode.FAIL;
        RateLimiter limiter = limiter(TEN_A_MINUTE, local().build());
        Lease lease = limiter.tryAcquire(1);
        assertFalse(lease.isAcquired(), "no membership was ever seen with the store answering: " + lease);
        assertTrue(lease.isLocalFallback());
    }

    @Test
    void storeThatCannotCountReplicas_withoutTheSetting_throwsAtCreation() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> limiter(TEN_A_MINUTE, local().build()));
        assertTrue(e.getMessage().contains("fallbackReplicas"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> limiters.partitioned("p", TEN_A_MINUTE, local().build(), Function.<String>identity()));
    }

    @Test
    void listeners_hearEveryLocalDecision() {
        List<String> heard = new CopyOnWriteArrayList<>();
        DecisionListener listener = new DecisionListener() {
            @Override
            public void onDecision(String limiter, DecisionResult result, long durationNanos) {
                heard.add(result.tag());
            }

            @Override
            public void onFallbackDecision(String limiter, boolean granted) {
                heard.add(granted ? "local-granted" : "local-refused");
            }
        };
        store.mode = ControllableStore.Mode.FAIL;
        RateLimiter limiter = limiter(LimitSpec.fixedWindow(2, Duration.ofMillis(60_500)),
                local().fallbackReplicas(2).listener(listener).build());
        limiter.tryAcquire(1);
        limiter.tryAcquire(1);
        assertEquals(List.of("local-granted", "degraded", "local-refused", "degraded"), heard);
    }

    @Test
    void fallbackReplicas_outOfRange_throwsNamingIt() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> LimiterOptions.builder().fallbackReplicas(0));
        assertTrue(zero.getMessage().contains("fallbackReplicas"), zero.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> LimiterOptions.builder().fallbackReplicas(LimiterOptions.MAX_FALLBACK_REPLICAS + 1));
        assertEquals(3, LimiterOptions.builder().fallbackReplicas(3).build().toBuilder().build().fallbackReplicas()
                .getAsInt());
    }
}
