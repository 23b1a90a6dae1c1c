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
import dev.sluice.limiter.Settlement;
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

/** The owner of keys is killed (SIGKILL) while settlements of their grants, charges and refunds, are in flight. */
@ExtendWith(Reaper.class)
final class FaultSettlementsInFlightTest {
    private static final int LIMIT = 300;
    private static final int GRANTS = 80;
    private static final int THREADS = 8;
    private static final Duration WINDOW = Duration.ofDays(1);
    private static final List<LimitSpec> SPECS = List.of(LimitSpec.fixedWindow(LIMIT, WINDOW),
            LimitSpec.slidingLog(LIMIT, WINDOW), LimitSpec.tokenBucket(LIMIT, 1, WINDOW));

    /**
     * Three member JVMs (backup count 1) and two clients in this JVM, one key per algorithm, all owned by one
     * member. Each key grants 80 leases of 2 permits; 8 threads settle them at 3, each a charge of one more (a
     * refund's re-run is {@link FaultRefundsInFlightTest}'s), and a third of the way through that owner is killed.
     * Settlements whose invocation ran on the dying owner and reached its backup are run again, by the client's
     * retry or by Hazelcast. Then every key is asked, one permit at a time, until it refuses.
     *
     * <p>Expected: the settled costs add up to 240, so each key grants again exactly {@code 300 - 240 = 60}. A
     * charge applied twice would leave fewer, one lost more; a settlement that answered {@code FAILED} (none is
     * expected: each is retried until it lands) leaves its reservation, and is counted apart.
     */
    @Test
    void ownerKilledWhileSettlementsAreInFlight_eachAppliedOnce() throws Exception {
        try (FaultCluster cluster = FaultCluster.start("faults-settlements", 3)) {
            Duration timeout = Duration.ofSeconds(5);
            List<HazelcastInstance> clients = List.of(cluster.client(timeout), cluster.client(timeout));
            clients.forEach(c -> FaultCluster.awaitMembers(c, 3, Duration.ofSeconds(30)));
            List<RateLimiters> factories = clients.stream().map(HazelcastRateLimiters::create).toList();
            clients.forEach(FaultCluster::warmUp);
            Windows.avoidBoundary(WINDOW, Duration.ofSeconds(60));
            int victim = 1;
            List<String> names = new ArrayList<>();
            for (int i = 0; names.size() < SPECS.size(); i++) {
                String name = "settlements-in-flight-" + i;
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
            ConcurrentLinkedQueue<Object[]> toSettle = new ConcurrentLinkedQueue<>();
            for (int k = 0; k < SPECS.size(); k++) {
                for (int i = 0; i < GRANTS; i++) {
                    Lease lease = limiters[i % 2][k].tryAcquire(2);
                    assertTrue(lease.isAcquired(), "grant " + i + " of key " + k);
                    toSettle.add(new Object[] {k, lease, 3L});
                }
            }
            int settlements = toSettle.size();
            AtomicLongArray failed = new AtomicLongArray(SPECS.size());
            AtomicInteger done = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    futures.add(pool.submit(() -> {
                        for (Object[] next = toSettle.poll(); next != null; next = toSettle.poll()) {
                            int k = (Integer) next[0];
                            Settlement s = ((Lease) next[1]).settle((Long) next[2]).get(1, TimeUnit.MINUTES);
                            if (!s.isSettled()) {
                                failed.incrementAndGet(k);
                            }
                            done.incrementAndGet();
                        }
                        return null;
                    }));
                }
                FaultCluster.await(() -> done.get() >= settlements / 3, Duration.ofMinutes(1),
                        () -> "settlements stalled");
                cluster.kill(victim);
                for (Future<?> f : futures) {
                    f.get(3, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
            StringBuilder report = new StringBuilder();
            List<String> wrong = new ArrayList<>();
            long unsettled = 0;
            long expected = LIMIT - 3L * GRANTS;
            for (int k = 0; k < SPECS.size(); k++) {
                int regranted = 0;
                for (int i = 0; i < LIMIT && limiters[i % 2][k].tryAcquire(1).isAcquired(); i++) {
                    regranted++;
                }
                report.append(String.format("%n  key %d %-12s settlements failed=%d, granted again=%d (expected %d)",
                        k, SPECS.get(k).algorithm(), failed.get(k), regranted, expected));
                if (failed.get(k) == 0 && regranted != expected) {
                    wrong.add("key " + k + " " + SPECS.get(k).algorithm());
                }
                unsettled += failed.get(k);
            }
            System.out.println("[faults] settlements in flight, owner " + victim + " killed after " + settlements / 3
                    + " of " + settlements + " settlements:" + report);
            assertTrue(unsettled == 0, unsettled + " settlements did not land" + report);
            assertTrue(wrong.isEmpty(), "a settlement was applied twice or lost on " + wrong + report);
            factories.forEach(RateLimiters::close);
        }
    }
}
