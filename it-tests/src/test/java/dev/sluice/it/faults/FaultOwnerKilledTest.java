package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.it.contract.RealTimeAccuracy;
import dev.sluice.limiter.DecisionUnavailableException;
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
import java.util.concurrent.CompletableFuture;
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

/** Scenario 1: the owner of keys under load is killed (SIGKILL) in a three-member cluster. */
@ExtendWith(Reaper.class)
final class FaultOwnerKilledTest {
    private static final int KEYS = 10;
    private static final int LIMIT = 1_000;
    private static final int REQUESTS = 20_000;
    private static final int THREADS = 8;
    private static final int KILL_AFTER = 6_000;
    private static final Duration WINDOW = Duration.ofDays(1);

    /**
     * Three member JVMs (backup count 1), two clients in this JVM, 8 threads making 20,000 single-permit
     * acquisitions over 10 keys of limit 1,000 (fixed window, sliding log, token bucket, in turn; keys 0-4
     * {@code THROW}, 5-9 {@code DENY}; decision timeout 5 s, 10 retries); after 6,000 decisions the owner of
     * key 0 is killed with SIGKILL.
     *
     * <p>Expected: no key grants more than its limit; a promoted backup carries every acknowledged
     * decision, so no budget is reset (a reset would show as over-admission: every key still has 1,400
     * requests to go after the kill, more than its whole limit); no caller sees an exception its failure
     * mode does not allow ({@code THROW}: only {@link DecisionUnavailableException}; {@code DENY}: none).
     * Consumption may exceed the grants by about the number of calls in flight at the kill: Hazelcast runs
     * a step at least once, so a step that ran on the dying owner (and reached its backup) while the caller
     * saw the connection drop is retried and charges twice; and a step whose backup was on the killed member
     * ran on its (live) owner, but the client waits for the lost backup's acknowledgement up to its backup
     * timeout (5 s), longer than the decision timeout, so the caller gets the failure mode although the
     * permit was taken (see {@link FaultBackupLossTest}). That over-charge is measured (the final
     * consumption, read with a probe, minus the grants) and printed with the slow calls' time line. The
     * clients warm up first ({@link FaultCluster#warmUp}) so that a cold-start stall is not counted.
     */
    @Test
    void ownerKilledUnderLoad_neverOverAdmitsAndBudgetsSurvive() throws Exception {
        try (FaultCluster cluster = FaultCluster.start("faults-owner-killed", 3)) {
            Duration timeout = Duration.ofSeconds(5);
            List<HazelcastInstance> clients = List.of(cluster.client(timeout), cluster.client(timeout));
            clients.forEach(c -> FaultCluster.awaitMembers(c, 3, Duration.ofSeconds(30)));
            List<RateLimiters> factories = clients.stream().map(HazelcastRateLimiters::create).toList();
            clients.forEach(FaultCluster::warmUp);
            Windows.avoidBoundary(WINDOW, Duration.ofSeconds(60));
            RateLimiter[][] limiters = new RateLimiter[factories.size()][KEYS];
            for (int r = 0; r < factories.size(); r++) {
                for (int k = 0; k < KEYS; k++) {
                    limiters[r][k] = factories.get(r).limiter("owner-killed-" + k, spec(k), options(k));
                }
            }
            String key0 = limiters[0][0].key();
            int victim = cluster.ownerOf(clients.get(0), key0);
            List<Integer> victimKeys = new ArrayList<>();
            for (int k = 0; k < KEYS; k++) {
                if (cluster.ownerOf(clients.get(0), limiters[0][k].key()) == victim) {
                    victimKeys.add(k);
                }
            }

            AtomicLongArray granted = new AtomicLongArray(KEYS);
            AtomicLongArray refused = new AtomicLongArray(KEYS);
            AtomicLongArray degraded = new AtomicLongArray(KEYS);
            AtomicLongArray unavailable = new AtomicLongArray(KEYS);
            Map<String, Throwable> unexpected = new ConcurrentHashMap<>();
            AtomicInteger done = new AtomicInteger();
            long[] latencies = new long[REQUESTS];
            SlowCalls slow = new SlowCalls(1_000);
            CountDownLatch killPoint = new CountDownLatch(1);
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            long started;
            long killedAt;
            long took;
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    futures.add(pool.submit(() -> {
                        start.await();
                        for (int i = thread; i < REQUESTS; i += THREADS) {
                            int k = i % KEYS;
                            RateLimiter limiter = limiters[thread % limiters.length][k];
                            long t0 = System.nanoTime();
                            try {
                                Lease lease = limiter.tryAcquire(1);
                                if (lease.isDegraded()) {
                                    degraded.incrementAndGet(k);
                                } else if (lease.isAcquired()) {
                                    granted.incrementAndGet(k);
                                } else {
                                    refused.incrementAndGet(k);
                                }
                            } catch (DecisionUnavailableException e) {
                                if (limiter.options().failureMode() == FailureMode.THROW) {
                                    unavailable.incrementAndGet(k);
                                } else {
                                    unexpected.put("request " + i + " key " + k, e);
                                }
                            } catch (RuntimeException e) {
                                unexpected.put("request " + i + " key " + k, e);
                            }
                            long t1 = System.nanoTime();
                            latencies[i] = t1 - t0;
                            slow.record(t0, t1, "key " + k);
                            if (done.incrementAndGet() == KILL_AFTER) {
                                killPoint.countDown();
                            }
                        }
                        return null;
                    }));
                }
                started = System.nanoTime();
                start.countDown();
                assertTrue(killPoint.await(2, TimeUnit.MINUTES), "load stalled before the kill");
                killedAt = System.nanoTime();
                slow.event("killing member " + victim);
                cluster.kill(victim);
                slow.event("member " + victim + " gone");
                for (Future<?> f : futures) {
                    f.get(3, TimeUnit.MINUTES);
                }
                took = System.nanoTime() - started;
            } finally {
                pool.shutdownNow();
            }

            long totalGranted = 0;
            long totalOvercharge = 0;
            StringBuilder report = new StringBuilder();
            for (int k = 0; k < KEYS; k++) {
                Lease probe = limiters[0][k].tryAcquire(0);
                assertTrue(!probe.isDegraded(), "probe of key " + k + " degraded");
                long consumed = LIMIT - probe.remaining();
                long overcharge = consumed - granted.get(k);
                totalGranted += granted.get(k);
                totalOvercharge += overcharge;
                report.append(String.format("%n  key %d %-12s %-5s owner-killed=%-5s granted=%d refused=%d degraded=%d"
                        + " unavailable=%d consumed=%d over-charge=%d", k, spec(k).algorithm(), options(k).failureMode(),
                        victimKeys.contains(k), granted.get(k), refused.get(k), degraded.get(k), unavailable.get(k),
                        consumed, overcharge));
            }
            System.out.printf("[faults] scenario 1: killed member %d (owner of keys %s) after %d of %d decisions"
                            + " (%d ms in); %d decisions in %d ms; granted %d, over-charge %d permits%s%n",
                    victim, victimKeys, KILL_AFTER, REQUESTS, TimeUnit.NANOSECONDS.toMillis(killedAt - started),
                    REQUESTS, TimeUnit.NANOSECONDS.toMillis(took), totalGranted, totalOvercharge, report);
            System.out.println("[faults] scenario 1: decision latency " + Latencies.summary(latencies) + "; " + slow);
            assertTrue(unexpected.isEmpty(), () -> "exceptions the failure mode does not allow: " + unexpected);
            for (int k = 0; k < KEYS; k++) {
                assertTrue(granted.get(k) <= LIMIT, "key " + k + " over-admitted: " + granted.get(k) + report);
                assertEquals(REQUESTS / KEYS, granted.get(k) + refused.get(k) + degraded.get(k) + unavailable.get(k));
                Lease probe = limiters[0][k].tryAcquire(0);
                assertEquals(0, probe.remaining(), "key " + k + ": demand exceeded the limit, the budget is spent");
            }
            factories.forEach(RateLimiters::close);
        }
    }

    /**
     * Scenario 1 on the real clock with 1-second windows: three member JVMs, two clients, every rate algorithm
     * on keys owned by one member, 8 callers each for 8 s; 3 s in, that owner is killed with SIGKILL. Every
     * grant is checked against its algorithm's invariant ({@link RealTimeAccuracy}): at most N per window
     * across the kill, so neither the promotion of the backups nor a retried step admits more. Failures follow
     * {@code DENY} (a degraded refusal), so the stall while the cluster repartitions shows as refusals that need no
     * cause, and every refusal the store decided must have had one. Every check reads the deciding member's clock.
     */
    @Test
    void ownerKilledUnderLoad_oneSecondWindows_neverAdmitMoreThanTheirLimitPerWindow() throws Exception {
        try (FaultCluster cluster = FaultCluster.start("faults-owner-killed-realtime", 3)) {
            Duration timeout = Duration.ofSeconds(5);
            List<HazelcastInstance> clients = List.of(cluster.client(timeout), cluster.client(timeout));
            clients.forEach(c -> FaultCluster.awaitMembers(c, 3, Duration.ofSeconds(30)));
            List<RateLimiters> factories = clients.stream().map(HazelcastRateLimiters::create).toList();
            clients.forEach(FaultCluster::warmUp);
            List<LimitSpec> specs = List.of(
                    LimitSpec.fixedWindow(20, Duration.ofSeconds(1)),
                    LimitSpec.slidingWindow(20, Duration.ofSeconds(1), 4),
                    LimitSpec.slidingLog(20, Duration.ofSeconds(1)),
                    LimitSpec.slidingCounter(20, Duration.ofSeconds(1)),
                    LimitSpec.tokenBucket(20, 5, Duration.ofMillis(250)),
                    LimitSpec.gcra(20, Duration.ofSeconds(1), 5));
            int victim = 1;
            List<String> names = new ArrayList<>();
            for (int i = 0; names.size() < specs.size(); i++) {
                String name = "owner-killed-realtime-" + i;
                if (cluster.ownerOf(clients.get(0), Keys.limiterKey(factories.get(0).keyPrefix(), name)) == victim) {
                    names.add(name);
                }
            }
            LimiterOptions options = LimiterOptions.builder().failureMode(FailureMode.DENY)
                    .decisionTimeout(Duration.ofSeconds(5)).maxRetries(10).build();
            CompletableFuture<List<RealTimeAccuracy.Result>> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return RealTimeAccuracy.run("faults-owner-killed", factories, specs, names, options,
                            Duration.ofSeconds(8), 8);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, r -> new Thread(r, "realtime-run").start());
            MemberProcess.sleep(3_000);
            cluster.kill(victim);
            List<RealTimeAccuracy.Result> results = run.get(2, TimeUnit.MINUTES);
            StringBuilder report = new StringBuilder(RealTimeAccuracy.Result.header());
            results.forEach(r -> report.append('\n').append(r.row()));
            System.out.println("[faults] scenario 1, real clock, owner of every key killed 3 s in:\n" + report);
            // Safety only: the kill's uncounted charges (the class comment) leave refusals the grants cannot explain.
            assertAll(results.stream().map(r -> () -> assertTrue(r.safe(), r.row())));
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

    private static LimiterOptions options(int key) {
        return LimiterOptions.builder().failureMode(key < KEYS / 2 ? FailureMode.THROW : FailureMode.DENY)
                .decisionTimeout(Duration.ofSeconds(5)).maxRetries(10).build();
    }
}
