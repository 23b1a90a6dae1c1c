package dev.sluice.it.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.Plans;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * A spec per plan ({@link RateLimiters#planned}) on every backend: two plans' clients at once each get exactly their
 * plan's limit; a client whose plan changes keeps what it consumed (the live-change rules, from another replica
 * too); an unknown plan gets the default plan's limit, or a refusal that takes nothing.
 */
public abstract class PlansContract extends SettleContract {
    private static final LimiterOptions OPTIONS = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10))
            .build();

    /** Each algorithm with a free plan of 20 and a pro plan of 60. */
    static Stream<Arguments> twoPlans() {
        List<LimitSpec> free = Specs.withLimit(20);
        List<LimitSpec> pro = Specs.withLimit(60);
        return IntStream.range(0, free.size()).mapToObj(i -> Arguments.of(free.get(i), pro.get(i)));
    }

    private static Plans plans(LimitSpec free, LimitSpec pro, boolean refuseUnknown) {
        Plans.Builder b = Plans.builder().plan("free", free).plan("pro", pro);
        return (refuseUnknown ? b.refuseUnknownPlans() : b.defaultPlan("free")).build();
    }

    private static List<PartitionedRateLimiter<String>> onEveryReplica(List<RateLimiters> replicas, String name,
            Plans plans, Map<String, String> planOf) {
        return replicas.stream().map(r -> r.planned(name, plans, OPTIONS, planOf::get)).toList();
    }

    /**
     * 1,200 acquisitions from 32 threads over every replica, alternating between a free client and a pro client of
     * one planned policy: each gets exactly its plan's limit.
     */
    @ParameterizedTest
    @MethodSource("twoPlans")
    void planned_twoPlansClientsAtOnceUnderConcurrency_eachGetsExactlyItsPlansLimit(LimitSpec free, LimitSpec pro)
            throws Exception {
        Map<String, String> planOf = Map.of("alice", "free", "bob", "pro");
        List<PartitionedRateLimiter<String>> limiters = onEveryReplica(backend().replicas(), unique("plans"),
                plans(free, pro, false), planOf);
        String[] clients = {"alice", "bob"};
        AtomicIntegerArray granted = new AtomicIntegerArray(2);
        ExecutorService pool = Executors.newFixedThreadPool(32);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < 32; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = thread; i < 1_200; i += 32) {
                        if (limiters.get(i % limiters.size()).tryAcquire(clients[i % 2], 1).isAcquired()) {
                            granted.incrementAndGet(i % 2);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(20, granted.get(0), "free, " + free.algorithm() + " on " + backend().name());
        assertEquals(60, granted.get(1), "pro, " + pro.algorithm() + " on " + backend().name());
    }

    /**
     * The core contract's live changes as a client's plan changing from the first spec's plan to the second's: 4 taken
     * under the first plan, then the client's plan changes (read by another replica): it gets what the
     * live-change rules leave it, never a fresh budget.
     */
    @ParameterizedTest
    @MethodSource("liveChanges")
    void planned_clientsPlanChanges_keepsWhatItConsumed(LimitSpec before, LimitSpec after, int expected) {
        Map<String, String> planOf = new ConcurrentHashMap<>(Map.of("carol", "before"));
        Plans plans = Plans.builder().plan("before", before).plan("after", after).defaultPlan("before").build();
        List<PartitionedRateLimiter<String>> limiters = onEveryReplica(backend().replicas(), unique("plan-change"),
                plans, planOf);
        for (int i = 0; i < 4; i++) {
            assertTrue(limiters.get(0).tryAcquire("carol", 1).isAcquired());
        }
        planOf.put("carol", "after");
        PartitionedRateLimiter<String> other = limiters.get(limiters.size() - 1);
        int granted = 0;
        for (int i = 0; i < 30; i++) {
            granted += other.tryAcquire("carol", 1).isAcquired() ? 1 : 0;
        }
        assertEquals(expected, granted, before + " -> " + after + " on " + backend().name());
        assertEquals(Optional.of("after"), other.planOf("carol"));
    }

    @Test
    void planned_unknownPlanWithADefault_getsTheDefaultPlansLimit() {
        LimitSpec free = LimitSpec.slidingLog(3, Duration.ofMinutes(1));
        LimitSpec pro = LimitSpec.slidingLog(9, Duration.ofMinutes(1));
        PartitionedRateLimiter<String> api = backend().limiters().planned(unique("unknown-default"),
                plans(free, pro, false), OPTIONS, Map.of("dan", "enterprise")::get);
        int granted = 0;
        for (int i = 0; i < 12; i++) {
            granted += api.tryAcquire("dan", 1).isAcquired() ? 1 : 0;
        }
        assertEquals(3, granted);
        assertEquals(3, api.inspect("dan").limit());
    }

    @Test
    void planned_unknownPlanRefused_refusesWithoutRetryAfter_andTakesNothing() {
        LimitSpec free = LimitSpec.fixedWindow(3, Duration.ofMinutes(1));
        LimitSpec pro = LimitSpec.fixedWindow(9, Duration.ofMinutes(1));
        Map<String, String> planOf = new ConcurrentHashMap<>(Map.of("erin", "enterprise"));
        PartitionedRateLimiter<String> api = backend().limiters().planned(unique("unknown-refused"),
                plans(free, pro, true), OPTIONS, planOf::get);
        for (int i = 0; i < 5; i++) {
            Lease refused = api.tryAcquire("erin", 1);
            assertFalse(refused.isAcquired());
            assertEquals(Optional.empty(), refused.retryAfter());
            assertEquals(0, refused.limit());
        }
        planOf.put("erin", "pro");
        assertTrue(api.tryAcquire("erin", 9).isAcquired(), "the refusals took nothing");
    }
}
