package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Keys;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scenario 1 for {@link Durability#REPLICATED_ASYNC}: the owner of keys being spent is killed (SIGKILL). With an
 * asynchronous backup the caller is answered before the backup lands, so the promoted backup may lack the owner's
 * last decisions, and the new owner grants those permits again. This measures how many, against how many
 * decisions were in flight at the kill.
 */
@ExtendWith(Reaper.class)
final class FaultOwnerKilledAsyncBackupTest {
    private static final int KEYS = 8;
    private static final int LIMIT = 400;
    private static final int REQUESTS = KEYS * 3 * LIMIT;
    private static final int THREADS = 8;
    private static final int KILL_AFTER = KEYS * LIMIT / 2;
    private static final Duration WINDOW = Duration.ofDays(1);
    /** "The last moments" before the kill, over which grants are counted for the report. */
    private static final long LAST_MOMENTS_MILLIS = 10;

    /**
     * Three member JVMs, two clients in this JVM, 8 threads making single-permit acquisitions on 8 keys of limit
     * 400, all owned by one member (fixed window, sliding log, token bucket in turn; {@code DENY}, decision timeout
     * 5 s, 10 retries), 1,200 per key; when half of every budget is spent, that owner is killed with SIGKILL. Every
     * key then still has more demand than its whole limit, so a budget that was reset would show as hundreds of
     * permits over.
     *
     * <p>Expected: the budgets survive, less what the last moments' lost backups held: over the keys, the permits
     * granted beyond the limit are at most the decisions in flight at the kill (a call started before it and
     * answered after) plus the grants answered in the last {@value #LAST_MOMENTS_MILLIS} ms before it. A step
     * retried on the new owner after its backup did land charges twice, which hides as many forgotten grants, so
     * the figure is a lower bound of what was forgotten; both are printed. Every key ends spent.
     */
    @Test
    void ownerKilledWhileBudgetsAreSpent_asyncBackup_overAdmitsAtMostTheLastMomentsDecisions() throws Exception {
        try (FaultCluster cluster = FaultCluster.start("faults-owner-killed-async", 3)) {
            Duration timeout = Duration.ofSeconds(5);
            List<HazelcastInstance> clients = List.of(cluster.client(timeout), cluster.client(timeout));
            clients.forEach(c -> FaultCluster.awaitMembers(c, 3, Duration.ofSeconds(30)));
            List<RateLimiters> factories = clients.stream().map(HazelcastRateLimiters::create).toList();
            clients.forEach(FaultCluster::warmUp);
            Windows.avoidBoundary(WINDOW, Duration.ofSeconds(60));
            int victim = 1;
            List<String> names = new ArrayList<>();
            for (int i = 0; names.size() < KEYS; i++) {
                String name = "owner-killed-async-" + i;
                if (cluster.ownerOf(clients.get(0), Keys.limiterKey(factories.get(0).keyPrefix(), name)) == victim) {
                    names.add(name);
                }
            }
            LimiterOptions options = LimiterOptions.builder().durability(Durability.REPLICATED_ASYNC)
                    .failureMode(FailureMode.DENY).decisionTimeout(timeout).maxRetries(10).build();
            RateLimiter[][] limiters = new RateLimiter[factories.size()][KEYS];
            for (int r = 0; r < factories.size(); r++) {
                for (int k = 0; k < KEYS; k++) {
                    limiters[r][k] = factories.get(r).limiter(names.get(k), spec(k), options);
                }
            }

            AtomicLongArray granted = new AtomicLongArray(KEYS);
            AtomicLongArray degraded = new AtomicLongArray(KEYS);
            long[] starts = new long[REQUESTS];
            long[] ends = new long[REQUESTS];
            boolean[] grants = new boolean[REQUESTS];
            Map<String, Throwable> unexpected = new ConcurrentHashMap<>();
            AtomicInteger done = new AtomicInteger();
            SlowCalls slow = new SlowCalls(1_000);
            CountDownLatch killPoint = new CountDownLatch(1);
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            long killedAt;
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    futures.add(pool.submit(() -> {
                        start.await();
                        for (int i = thread; i < REQUESTS; i += THREADS) {
                            int k = i % KEYS;
                            long t0 = System.nanoTime();
                            try {
                                Lease lease = limiters[thread % limiters.length][k].tryAcquire(1);
                                if (lease.isDegraded()) {
                                    degraded.incrementAndGet(k);
                                } else if (lease.isAcquired()) {
                                    granted.incrementAndGet(k);
                                    grants[i] = true;
                                }
                            } catch (RuntimeException e) {
                                unexpected.put("request " + i + " key " + k, e);
                            }
                            long t1 = System.nanoTime();
                            starts[i] = t0;
                            ends[i] = t1;
                            slow.record(t0, t1, "key " + k);
                            if (done.incrementAndGet() == KILL_AFTER) {
                                killPoint.countDown();
                            }
                        }
                        return null;
                    }));
                }
                start.countDown();
                assertTrue(killPoint.await(2, TimeUnit.MINUTES), "load stalled before the kill");
                killedAt = System.nanoTime();
                slow.event("killing member " + victim);
                cluster.kill(victim);
                slow.event("member " + victim + " gone");
                for (Future<?> f : futures) {
                    f.get(3, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }

            int inFlight = 0;
            int lastMoments = 0;
            long lastMomentsNanos = TimeUnit.MILLISECONDS.toNanos(LAST_MOMENTS_MILLIS);
            for (int i = 0; i < REQUESTS; i++) {
                if (starts[i] < killedAt && ends[i] >= killedAt) {
                    inFlight++;
                } else if (grants[i] && ends[i] < killedAt && killedAt - ends[i] <= lastMomentsNanos) {
                    lastMoments++;
                }
            }
            long overAdmitted = 0;
            long overCharged = 0;
            StringBuilder report = new StringBuilder();
            for (int k = 0; k < KEYS; k++) {
                Lease probe = limiters[0][k].tryAcquire(0);
                assertTrue(!probe.isDegraded(), "probe of key " + k + " degraded");
                assertEquals(0, probe.remaining(), "key " + k + ": demand exceeded the limit, the budget is spent");
                overAdmitted += Math.max(0, granted.get(k) - LIMIT);
                overCharged += Math.max(0, LIMIT - granted.get(k));
                report.append(String.format("%n  key %d %-12s granted=%d degraded=%d over-admitted=%d", k,
                        spec(k).algorithm(), granted.get(k), degraded.get(k), Math.max(0, granted.get(k) - LIMIT)));
            }
            String summary = String.format("[faults] scenario 1, REPLICATED_ASYNC: killed the owner of %d keys after %d"
                            + " of %d decisions; in flight at the kill %d, grants in the last %d ms before it %d;"
                            + " over-admitted %d permits, over-charged %d%s", KEYS, KILL_AFTER, REQUESTS, inFlight,
                    LAST_MOMENTS_MILLIS, lastMoments, overAdmitted, overCharged, report);
            System.out.println(summary);
            System.out.println("[faults] scenario 1, REPLICATED_ASYNC: " + slow);
            assertTrue(unexpected.isEmpty(), () -> "exceptions DENY does not allow: " + unexpected);
            assertTrue(overAdmitted <= inFlight + lastMoments, summary);
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
