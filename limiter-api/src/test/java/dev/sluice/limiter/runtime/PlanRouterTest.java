package dev.sluice.limiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.Plans;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link RateLimiters#planned}'s default, for a factory that wraps another: a partitioned limiter per plan. */
final class PlanRouterTest {
    private static final Duration HOUR = Duration.ofHours(1);
    private final RateLimiters store = LocalRateLimiters.create(new ManualClock());
    /** A wrapper as an application writes one: limiters and partitioned limiters only. */
    private final RateLimiters wrapper = new RateLimiters() {
        @Override public String keyPrefix() { return store.keyPrefix(); }
        @Override public RateLimiter limiter(String name, LimitSpec spec, LimiterOptions options) {
            return store.limiter(name, spec, options);
        }
        @Override public <P> PartitionedRateLimiter<P> partitioned(String policy, LimitSpec spec, LimiterOptions options,
                Function<? super P, String> partitionId) {
            return store.partitioned(policy, spec, options, partitionId);
        }
        @Override public void close() {}
    };
    private final Map<String, String> planOfClient = new ConcurrentHashMap<>(Map.of("alice", "free", "bob", "pro"));

    @AfterEach
    void close() {
        store.close();
    }

    private PartitionedRateLimiter<String> planned(boolean refuseUnknown) {
        Plans.Builder b = Plans.builder().plan("free", LimitSpec.fixedWindow(10, HOUR))
                .plan("pro", LimitSpec.fixedWindow(20, HOUR));
        return wrapper.planned("api", (refuseUnknown ? b.refuseUnknownPlans() : b.defaultPlan("free")).build(),
                LimiterOptions.defaults(), planOfClient::get);
    }

    private static int granted(PartitionedRateLimiter<String> limiter, String client, int attempts) {
        int granted = 0;
        for (int i = 0; i < attempts; i++) {
            granted += limiter.tryAcquire(client, 1).isAcquired() ? 1 : 0;
        }
        return granted;
    }

    @Test
    void eachPlan_itsLimit_planChangeKeepsConsumption_statisticsCountTheLeases() {
        PartitionedRateLimiter<String> api = planned(false);
        assertInstanceOf(PlanRouter.class, api);
        assertEquals(10, granted(api, "alice", 30));
        assertEquals(8, granted(api, "bob", 8));
        planOfClient.put("bob", "free");
        assertEquals(2, granted(api, "bob", 5), "free's 10 less the 8 taken under pro: the same key");
        assertEquals(2, granted(api, "carol", 2), "an unknown plan: the default plan");
        assertEquals(Optional.of("free"), api.planOf("carol"));
        assertEquals(10, api.specOf("dan").orElseThrow().limit());
        assertEquals(22, api.statistics().granted());
        assertEquals(23, api.statistics().refused());
    }

    @Test
    void unknownPlanRefused_refusedWithoutRetryAfter() {
        PartitionedRateLimiter<String> api = planned(true);
        Lease refused = api.tryAcquire("carol", 1);
        assertFalse(refused.isAcquired());
        assertEquals(0, refused.limit());
        assertEquals(Optional.empty(), refused.retryAfter());
        assertEquals(Optional.empty(), api.specOf("carol"));
        assertThrows(IllegalArgumentException.class, () -> api.inspect("carol"));
        assertTrue(api.tryAcquire("bob", 20).isAcquired());
    }
}
