package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The owner of keys is killed (SIGKILL) while refunds of their grants are in flight. */
@ExtendWith(Reaper.class)
final class FaultRefundsInFlightTest {
    private static final int LIMIT = 300;
    private static final int THREADS = 8;
    private static final Duration WINDOW = Duration.ofDays(1);
    private static final List<LimitSpec> SPECS = List.of(LimitSpec.fixedWindow(LIMIT, WINDOW),
            LimitSpec.slidingLog(LIMIT, WINDOW), LimitSpec.tokenBucket(LIMIT, 1, WINDOW));

    /**
     * Three member JVMs (backup count 1) and two clients in this JVM, one key per algorithm, all owned by one
     * member. Each key's whole limit is granted; then 8 threads refund two thirds of the grants (retried, as
     * every step, up to 10 times within 30 s), and a third of the way through the refunds that owner is killed.
     * Refunds whose invocation ran on the dying owner and reached its backup are run again, by the client's
     * retry (its first run's answer was lost) or by Hazelcast. Then every key is asked until it refuses.
     *
     * <p>Expected: what stands never exceeds the limit. A refund applied twice would give back a permit its
     * caller holds, and the key would then grant one more than its limit: grants minus the refunds that
     * answered true must stay within the limit plus the refunds that answered false (those may or may not have
     * been applied once). And no refund is lost to the crash: each is retried until it lands, and answers true
     * (before refunds carried an id they were never retried, and those in flight at the kill were lost).
     */
    @Test
    void ownerKilledWhileRefundsAreInFlight_standingGrantsStayWithinTheLimit() throws Exception {
        try (FaultCluster cluster = FaultCluster.start("faults-refunds", 3)) {
            Duration timeout = Duration.ofSeconds(5);
            List<HazelcastInstance> clients = List.of(cluster.client(timeout), cluster.client(timeout));
            clients.forEach(c -> FaultCluster.awaitMembers(c, 3, Duration.ofSeconds(30)));
            List<RateLimiters> factories = clients.stream().map(HazelcastRateLimiters::create).toList();
            clients.forEach(FaultCluster::warmUp);
            Windows.avoidBoundary(WINDOW, Duration.ofSeconds(60));
            int victim = 1;
            List<String> names = new ArrayList<>();
            for (int i = 0; names.size() < SPECS.size(); i++) {
                String name = "refunds-in-flight-" + i;
                if (cluster.ownerOf(clients.get(0), Keys.limiterKey(factories.get(0).keyPrefix(), name)) == victim) {
                    names.add(name);
                }
            }
            LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).maxRetries(10)
                    .build();
            RateLimiter[][] limiters = new RateLimiter[factories.size()][SPECS.size()];
            for (int r = 0; r < factories.size(); r++) {
                for (int k = 0; k < SPECS.size(); k++) {
                    limiters[r][k] = factories.get(r).limiter(names.get(k), SPECS.get(k), options);
                }
            }
            ConcurrentLinkedQueue<Object[]> toRefund = new ConcurrentLinkedQueue<>();
            for (int k = 0; k < SPECS.size(); k++) {
                for (int i = 0; i < LIMIT; i++) {
                    Lease lease = limiters[i % 2][k].tryAcquire(1);
                    assertTrue(lease.isAcquired(), "grant " + i + " of key " + k);
                    if (i % 3 != 0) {
                        toRefund.add(new Object[] {k, lease});
                    }
                }
            }
            int refunds = toRefund.size();
            AtomicLongArray refundedTrue = new AtomicLongArray(SPECS.size());
            AtomicLongArray refundedFalse = new AtomicLongArray(SPECS.size());
            AtomicInteger done = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    futures.add(pool.submit(() -> {
                        for (Object[] next = toRefund.poll(); next != null; next = toRefund.poll()) {
                            int k = (Integer) next[0];
                            boolean gaveBack = ((Lease) next[1]).refund().get(1, TimeUnit.MINUTES);
                            (gaveBack ? refundedTrue : refundedFalse).incrementAndGet(k);
                            done.incrementAndGet();
                        }
                        return null;
                    }));
                }
                FaultCluster.await(() -> done.get() >= refunds / 3, Duration.ofMinutes(1), () -> "refunds stalled");
                cluster.kill(victim);
                for (Future<?> f : futures) {
                    f.get(3, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
            StringBuilder report = new StringBuilder();
            List<String> over = new ArrayList<>();
            long lost = 0;
            for (int k = 0; k < SPECS.size(); k++) {
                int regranted = 0;
                for (int i = 0; i < LIMIT && limiters[i % 2][k].tryAcquire(1).isAcquired(); i++) {
                    regranted++;
                }
                long standing = LIMIT + regranted - refundedTrue.get(k);
                report.append(String.format("%n  key %d %-12s refunds true=%d false=%d, granted again=%d, standing=%d"
                        + " (limit %d, at most %d)", k, SPECS.get(k).algorithm(), refundedTrue.get(k),
                        refundedFalse.get(k), regranted, standing, LIMIT, LIMIT + refundedFalse.get(k)));
                if (standing > LIMIT + refundedFalse.get(k)) {
                    over.add("key " + k + " " + SPECS.get(k).algorithm());
                }
                lost += refundedFalse.get(k);
            }
            System.out.println("[faults] refunds in flight, owner " + victim + " killed after " + refunds / 3 + " of "
                    + refunds + " refunds:" + report);
            assertTrue(over.isEmpty(), "a refund was applied twice on " + over + report);
            assertTrue(lost == 0, lost + " refunds answered false" + report);
            factories.forEach(RateLimiters::close);
        }
    }
}
