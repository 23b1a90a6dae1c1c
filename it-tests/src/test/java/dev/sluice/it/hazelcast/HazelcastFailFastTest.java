package dev.sluice.it.hazelcast;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A client set up with {@link SluiceHazelcast#failFast} that loses its whole cluster answers within the
 * decision timeout, following the failure mode; Hazelcast's "client offline" is a store failure, never
 * mistaken for a usage error.
 */
final class HazelcastFailFastTest {
    private static TestCluster cluster;
    private static RateLimiters limiters;

    @BeforeAll
    static void start() {
        cluster = TestCluster.start("sluice-failfast", 1, null);
        ClientConfig config = SluiceHazelcast.failFast(SluiceHazelcast.configure(cluster.clientConfig()),
                Duration.ofSeconds(1));
        HazelcastInstance client = cluster.addClient(config);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) { // asyncStart: the client connects in the background
            try {
                client.getMap("sluice").size();
                break;
            } catch (RuntimeException offline) {
                if (System.nanoTime() > deadline) {
                    throw offline;
                }
                Thread.onSpinWait();
            }
        }
        limiters = HazelcastRateLimiters.create(client);
    }

    @AfterAll
    static void stop() {
        if (limiters != null) {
            limiters.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void clusterLost_decisionsFollowTheFailureModeWithinTheDecisionTimeout() {
        LimitSpec spec = LimitSpec.fixedWindow(10, Duration.ofMinutes(1));
        LimiterOptions allow = LimiterOptions.builder().failureMode(FailureMode.ALLOW)
                .decisionTimeout(Duration.ofSeconds(1)).build();
        RateLimiter open = limiters.limiter("failfast-allow", spec, allow);
        RateLimiter strict = limiters.limiter("failfast-throw", spec,
                allow.toBuilder().failureMode(FailureMode.THROW).build());
        Lease before = open.tryAcquire(1);
        assertTrue(before.isAcquired() && !before.isDegraded());

        cluster.members.get(0).getLifecycleService().terminate();

        long start = System.nanoTime();
        Lease degraded = open.tryAcquire(1);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(degraded.isAcquired() && degraded.isDegraded(), degraded.toString());
        assertTrue(tookMillis < 2_000, "took " + tookMillis + " ms");
        assertThrows(DecisionUnavailableException.class, () -> strict.tryAcquire(1));
        Lease async = open.acquireAsync(1).join();
        assertTrue(async.isDegraded());
        assertFalse(limiters.limiter("failfast-deny", spec, allow.toBuilder().failureMode(FailureMode.DENY).build())
                .tryAcquire(1).isAcquired());
    }

    /** Regression: creating limiters on an async-started client that is still offline threw "client offline". */
    @Test
    void create_offlineAsyncStartClient_succeedsAndDecisionsFollowTheFailureMode() {
        TestCluster nowhere = TestCluster.empty("sluice-nowhere");
        ClientConfig config = SluiceHazelcast.failFast(SluiceHazelcast.configure(nowhere.clientConfig()),
                Duration.ofSeconds(1));
        config.getNetworkConfig().addAddress(nowhere.address(0)); // a free port: no member listens there
        try (TestCluster closing = nowhere) {
            RateLimiters offline = HazelcastRateLimiters.create(nowhere.addClient(config));
            Lease lease = offline.limiter("offline", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                    LimiterOptions.builder().failureMode(FailureMode.DENY).decisionTimeout(Duration.ofMillis(300))
                            .build()).tryAcquire(1);
            assertTrue(!lease.isAcquired() && lease.isDegraded(), lease.toString());
            offline.close();
        }
    }
}
