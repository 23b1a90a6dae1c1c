package dev.sluice.limiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.Plans;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link RateLimiters#planned}: a spec per plan on one key per partition, on the in-process store. */
final class PlannedLimiterTest {
    private static final Duration HOUR = Duration.ofHours(1);
    private static final LimitSpec FREE = LimitSpec.fixedWindow(10, HOUR);
    private static final LimitSpec PRO = LimitSpec.fixedWindow(20, HOUR);

    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00.123Z"));
    private final RateLimiters limiters = LocalRateLimiters.create(clock);
    private final Map<String, String> planOfClient = new ConcurrentHashMap<>(Map.of("alice", "free", "bob", "pro"));

    @AfterEach
    void close() {
        limiters.close();
    }

    private static Plans plans(boolean refuseUnknown) {
        Plans.Builder b = Plans.builder().plan("free", FREE).plan("pro", PRO);
        return (refuseUnknown ? b.refuseUnknownPlans() : b.defaultPlan("free")).build();
    }

    private PartitionedRateLimiter<String> planned(boolean refuseUnknown) {
        return limiters.planned("api", plans(refuseUnknown), LimiterOptions.defaults(), planOfClient::get);
    }

    private static int granted(PartitionedRateLimiter<String> limiter, String client, int attempts) {
        int granted = 0;
        for (int i = 0; i < attempts; i++) {
            granted += limiter.tryAcquire(client, 1).isAcquired() ? 1 : 0;
        }
        return granted;
    }

    @Test
    void tryAcquire_eachClientGetsItsPlansLimit_andTheLeaseNamesIt() {
        PartitionedRateLimiter<String> api = planned(false);
        assertEquals(10, granted(api, "alice", 30));
        assertEquals(20, granted(api, "bob", 30));
        assertEquals(20, api.tryAcquire("bob", 0).limit());
        assertEquals(Optional.of("pro"), api.planOf("bob"));
        assertEquals(Optional.of(PRO), api.specOf("bob"));
        assertEquals(FREE, api.spec(), "the default plan's");
    }

    @Test
    void planChanges_clientKeepsWhatItConsumed_inBothDirections() {
        PartitionedRateLimiter<String> api = planned(false);
        assertEquals(8, granted(api, "alice", 8));
        planOfClient.put("alice", "pro");
        assertEquals(12, granted(api, "alice", 30), "upgraded: the pro limit less the 8 taken");
        planOfClient.put("alice", "free");
        assertEquals(0, granted(api, "alice", 30), "downgraded: 20 taken already exceed the free limit");
        assertEquals(api.keyOf("alice"), "sluice/api/alice", "the plan is not part of the key");
        clock.advance(HOUR);
        assertEquals(10, granted(api, "alice", 30), "the next window under the plan of the day");
    }

    @Test
    void unknownPlan_withDefault_getsTheDefaultPlansLimit() {
        PartitionedRateLimiter<String> api = planned(false);
        planOfClient.put("carol", "enterprise");
        assertEquals(10, granted(api, "carol", 30));
        assertEquals(10, granted(api, "dave", 30), "no plan at all");
        assertEquals(Optional.of("free"), api.planOf("carol"));
        assertEquals(Optional.of(FREE), api.specOf("carol"));
    }

    @Test
    void unknownPlan_refused_leaseRefusedWithoutRetryAfterOrLimit_andNothingStored() throws Exception {
        PartitionedRateLimiter<String> api = planned(true);
        planOfClient.put("carol", "enterprise");
        Lease refused = api.tryAcquire("carol", 1);
        assertFalse(refused.isAcquired());
        assertFalse(refused.isDegraded());
        assertEquals(Optional.empty(), refused.retryAfter());
        assertEquals(0, refused.limit());
        assertFalse(api.acquireAsync("carol", 1).get(5, TimeUnit.SECONDS).isAcquired());
        assertFalse(api.acquire("carol", 1, Duration.ofSeconds(1)).isAcquired());
        assertEquals(Optional.empty(), api.specOf("carol"));
        assertEquals(Optional.empty(), api.planOf("carol"));
        assertEquals(3, api.statistics().refused());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> api.inspect("carol"));
        assertTrue(e.getMessage().contains("plan 'enterprise'") && e.getMessage().contains("[free, pro]"),
                e.getMessage());
        planOfClient.put("carol", "pro");
        assertEquals(20, granted(api, "carol", 30), "the refusals took nothing");
    }

    @Test
    void inspectAndReset_usePartitionsPlan() {
        PartitionedRateLimiter<String> api = planned(false);
        granted(api, "bob", 5);
        assertEquals(20, api.inspect("bob").limit());
        assertEquals(15, api.inspect("bob").remaining());
        assertEquals(20, api.reset("bob").remaining());
        assertEquals(10, api.reset("alice", 10).limit());
    }

    @Test
    void acquireAsync_queuedWaiterOfAPlan_servedInItsNextWindow() throws Exception {
        PartitionedRateLimiter<String> api = limiters.planned("queued", plans(false), LimiterOptions.builder()
                .queueLimit(1).pollInterval(Duration.ofMillis(2)).build(), planOfClient::get);
        assertEquals(20, granted(api, "bob", 20));
        CompletableFuture<Lease> waiter = api.acquireAsync("bob", 1);
        assertFalse(waiter.isDone());
        clock.advance(HOUR);
        Lease lease = waiter.get(30, TimeUnit.SECONDS);
        assertTrue(lease.isAcquired());
        assertEquals(20, lease.limit());
    }

    @Test
    void chain_plannedLink_checksPermitsAgainstThePartitionsPlan() {
        PartitionedRateLimiter<String> api = planned(false);
        PartitionedRateLimiter<String> everyone = limiters.partitioned("everyone", LimitSpec.fixedWindow(100, HOUR),
                LimiterOptions.defaults(), Function.<String>identity().andThen(p -> "all"));
        PartitionedRateLimiter<String> both = RateLimiters.chain(api, everyone);
        assertTrue(both.tryAcquire("bob", 15).isAcquired(), "15 is within the pro limit, above the free one");
        assertThrows(IllegalArgumentException.class, () -> both.tryAcquire("alice", 15));
        assertEquals(85, everyone.tryAcquire("x", 0).remaining());
    }

    @Test
    void planned_planRefusedByTheOptions_namesThePlan() {
        Plans leases = Plans.builder().plan("free", LimitSpec.concurrency(1, Duration.ofSeconds(2)))
                .plan("pro", LimitSpec.concurrency(5, Duration.ofMillis(500))).defaultPlan("free").build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> limiters.planned("leases",
                leases, LimiterOptions.builder().renewInterval(Duration.ofSeconds(1)).build(), planOfClient::get));
        assertTrue(e.getMessage().startsWith("plan 'pro' of policy 'leases'"), e.getMessage());
    }

    @Test
    void concurrencyPlans_eachClientHoldsItsPlansLeases() {
        Plans leases = Plans.builder().plan("free", LimitSpec.concurrency(1, Duration.ofMinutes(1)))
                .plan("pro", LimitSpec.concurrency(3, Duration.ofMinutes(1))).defaultPlan("free").build();
        PartitionedRateLimiter<String> api = limiters.planned("leases", leases, LimiterOptions.defaults(),
                planOfClient::get);
        assertEquals(1, granted(api, "alice", 5));
        assertEquals(3, granted(api, "bob", 5));
    }
}
