package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Scenario 3: every member restarted, one at a time, gracefully, under load. */
@ExtendWith(Reaper.class)
final class FaultRollingRestartTest {
    private static final int KEYS = 6;
    private static final int LIMIT = 300;
    private static final int THREADS = 4;
    private static final Duration WINDOW = Duration.ofDays(1);

    /**
     * Three member JVMs; two clients; four threads acquire on 6 keys of limit 300 (fixed window, sliding
     * log, token bucket; {@code THROW}, decision timeout 5 s, 10 retries) for the whole run, which spends
     * every budget within seconds and then keeps asking; meanwhile each member in turn is shut down
     * gracefully (it hands its partitions over first) and started again on its port, joining the others.
     *
     * <p>Expected: no error at all (a graceful leave loses no state, and Sluice retries the calls that meet
     * a migrating partition or a closing connection within the decision timeout); no degraded decision; no
     * key grants more than its limit (once a budget is spent, any grant would mean the state was lost on
     * the way); every budget ends exactly spent.
     */
    @Test
    void rollingRestart_noErrorAndNoOverAdmission() throws Exception {
        try (FaultCluster cluster = FaultCluster.start("faults-rolling", 3)) {
            Duration timeout = Duration.ofSeconds(5);
            List<HazelcastInstance> clients = List.of(cluster.client(timeout), cluster.client(timeout));
            clients.forEach(c -> FaultCluster.awaitMembers(c, 3, Duration.ofSeconds(30)));
            List<RateLimiters> factories = clients.stream().map(HazelcastRateLimiters::create).toList();
            clients.forEach(FaultCluster::warmUp);
            Windows.avoidBoundary(WINDOW, Duration.ofSeconds(90));
            LimiterOptions options = LimiterOptions.builder().decisionTimeout(timeout).maxRetries(10).build();
            RateLimiter[][] limiters = new RateLimiter[factories.size()][KEYS];
            for (int r = 0; r < factories.size(); r++) {
                for (int k = 0; k < KEYS; k++) {
                    limiters[r][k] = factories.get(r).limiter("rolling-" + k, spec(k), options);
                }
            }
            AtomicLongArray granted = new AtomicLongArray(KEYS);
            AtomicLong decisions = new AtomicLong();
            AtomicLong degraded = new AtomicLong();
            Map<String, Throwable> errors = new ConcurrentHashMap<>();
            AtomicBoolean running = new AtomicBoolean(true);
            SlowCalls slow = new SlowCalls(1_000);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            long[] decisionsAtRestart = new long[cluster.size() + 1];
            try {
                List<Future<?>> loops = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    loops.add(pool.submit(() -> {
                        for (long i = thread; running.get(); i += THREADS) {
                            int k = (int) (i % KEYS);
                            long t0 = System.nanoTime();
                            try {
                                Lease lease = limiters[thread % limiters.length][k].tryAcquire(1);
                                if (lease.isDegraded()) {
                                    degraded.incrementAndGet();
                                } else if (lease.isAcquired()) {
                                    granted.incrementAndGet(k);
                                }
                            } catch (RuntimeException e) {
                                errors.put("key " + k + " at " + decisions.get(), e);
                            }
                            slow.record(t0, System.nanoTime(), "key " + k);
                            decisions.incrementAndGet();
                            MemberProcess.sleep(1); // leave CPU for the restarting JVMs
                        }
                        return null;
                    }));
                }
                slow.event("load started");
                FaultCluster.await(() -> decisions.get() >= 500, Duration.ofSeconds(60), () -> "no load");
                for (int i = 0; i < cluster.size(); i++) {
                    decisionsAtRestart[i] = decisions.get();
                    slow.event("stopping member " + i);
                    cluster.stop(i);
                    slow.event("starting member " + i);
                    cluster.restart(i);
                    slow.event("member " + i + " back");
                    for (HazelcastInstance client : clients) {
                        FaultCluster.awaitMembers(client, 3, Duration.ofSeconds(30));
                    }
                }
                decisionsAtRestart[cluster.size()] = decisions.get();
                MemberProcess.sleep(500);
                running.set(false);
                for (Future<?> loop : loops) {
                    loop.get(1, TimeUnit.MINUTES);
                }
            } finally {
                running.set(false);
                pool.shutdownNow();
            }
            System.out.printf("[faults] scenario 3: %d decisions (before restarts %d, %d, %d, after %d), granted %s,"
                            + " degraded %d, errors %d%n", decisions.get(), decisionsAtRestart[0], decisionsAtRestart[1],
                    decisionsAtRestart[2], decisionsAtRestart[3], granted, degraded.get(), errors.size());
            System.out.println("[faults] scenario 3: " + slow);
            assertTrue(errors.isEmpty(), () -> "errors during the rolling restart: " + errors);
            assertEquals(0, degraded.get(), "degraded decisions");
            for (int k = 0; k < KEYS; k++) {
                assertTrue(granted.get(k) <= LIMIT, "key " + k + " over-admitted: " + granted);
                assertEquals(0, limiters[0][k].tryAcquire(0).remaining(), "key " + k + " ends spent");
            }
            assertTrue(decisionsAtRestart[1] > decisionsAtRestart[0] && decisionsAtRestart[3] > decisionsAtRestart[2],
                    "load ran through the restarts");
            factories.forEach(RateLimiters::close);
        }
    }

    private static LimitSpec spec(int key) {
        return switch (key % 3) {
            case 0 -> LimitSpec.fixedWindow(LIMIT, WINDOW);
            case 1 -> LimitSpec.slidingLog(LIMIT, WINDOW);
            default -> LimitSpec.tokenBucket(LIMIT, 1, WINDOW);
        };
    }
}
