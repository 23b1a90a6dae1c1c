package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.it.contract.CoreContract;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Scenario 5: client-server. Members are started only from the launcher ({@code SluiceMember}, Sluice on
 * their classpath); the application is a pure Hazelcast client.
 *
 * <p>The contract suite itself cannot run here: it moves a {@code ManualClock} that member JVMs cannot see.
 * Its exactness test is repeated instead, with windows far longer than the test (real time).
 */
@ExtendWith(Reaper.class)
final class FaultClientServerTest {
    private static final long LIMIT = 100;
    private static FaultCluster cluster;
    private static List<RateLimiters> replicas;

    @BeforeAll
    static void start() {
        cluster = FaultCluster.start("faults-client-server", 2);
        replicas = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            HazelcastInstance client = cluster.client(Duration.ofSeconds(5));
            FaultCluster.awaitMembers(client, 2, Duration.ofSeconds(30));
            replicas.add(HazelcastRateLimiters.create(client));
        }
    }

    @AfterAll
    static void stop() {
        if (replicas != null) {
            replicas.forEach(RateLimiters::close);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static Stream<LimitSpec> limit100() {
        Duration day = Duration.ofDays(1);
        return Stream.of(
                LimitSpec.fixedWindow(LIMIT, day),
                LimitSpec.slidingWindow(LIMIT, day, 6),
                LimitSpec.slidingLog(LIMIT, day),
                LimitSpec.slidingCounter(LIMIT, day),
                LimitSpec.tokenBucket(LIMIT, 1, day),
                LimitSpec.gcra(1, day, LIMIT),
                LimitSpec.concurrency(LIMIT, Duration.ofMinutes(1)));
    }

    /**
     * The contract suite's exactness test through two pure clients of two launcher-started member JVMs:
     * 1,000 acquisitions from 32 threads over both clients grant exactly the limit of 100 (concurrency: the
     * 100 leases are still held, so nothing more fits).
     */
    @ParameterizedTest
    @MethodSource("limit100")
    void tryAcquire_heavyConcurrencyFromTwoClients_grantsExactlyTheLimit(LimitSpec spec) throws Exception {
        Windows.avoidBoundary(Duration.ofDays(1), Duration.ofSeconds(30));
        String name = "exact-" + UUID.randomUUID();
        LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build();
        List<RateLimiter> limiters = replicas.stream().map(r -> r.limiter(name, spec, options)).toList();
        int granted = CoreContract.grantedFrom32Threads(limiters, 1_000);
        assertEquals(LIMIT, granted, spec.algorithm() + " through two clients");
        assertFalse(limiters.get(0).tryAcquire(1).isAcquired());
    }

    /**
     * A member started without Sluice's classes (a JVM whose classpath lacks {@code limiter-api} and
     * {@code hazelcast-impl}, started with Hazelcast's own {@code HazelcastMemberStarter}) makes
     * {@link HazelcastRateLimiters#create} fail at once with an {@link IllegalStateException} that says which
     * jars each member needs, instead of every decision failing later.
     */
    @Test
    void create_memberWithoutSluiceClasses_failsWithWhatToInstall() throws Exception {
        Predicate<String> sluiceJar = entry -> entry.contains(File.separator + "limiter-api")
                || entry.contains(File.separator + "hazelcast-impl");
        List<String> removed = MemberProcess.testClasspath().stream().filter(sluiceJar).toList();
        assertTrue(removed.size() >= 2, "the test classpath should hold both Sluice modules: " + removed);
        FaultCluster plain = new FaultCluster("faults-plain", 1);
        String address = plain.address(0);
        Path config = Path.of("target", "faults", "plain-member.yaml").toAbsolutePath();
        Files.createDirectories(config.getParent());
        Files.writeString(config, String.join("\n",
                "hazelcast:",
                "  cluster-name: faults-plain",
                "  properties:",
                "    hazelcast.phone.home.enabled: false",
                "    hazelcast.partition.count: 71",
                "    hazelcast.shutdownhook.enabled: false",
                "  network:",
                "    public-address: " + address,
                "    port:",
                "      auto-increment: false",
                "      port: " + plain.port(0),
                "    interfaces:",
                "      enabled: true",
                "      interfaces: [127.0.0.1]",
                "    join:",
                "      auto-detection:",
                "        enabled: false",
                "      multicast:",
                "        enabled: false",
                "      tcp-ip:",
                "        enabled: true",
                "        member-list: [" + address + "]", ""));
        try (MemberProcess member = MemberProcess.start("faults-plain-m0", MemberProcess.classpath(sluiceJar),
                Map.of("hazelcast.config", config.toString()), "com.hazelcast.core.server.HazelcastMemberStarter", List.of());
                plain) {
            member.awaitOutput("is STARTED", FaultCluster.START_TIMEOUT);
            HazelcastInstance client = plain.client(Duration.ofSeconds(5));
            FaultCluster.awaitMembers(client, 1, Duration.ofSeconds(30));

            IllegalStateException e = assertThrows(IllegalStateException.class, () -> HazelcastRateLimiters.create(client));
            System.out.println("[faults] scenario 5: create() on a cluster without Sluice: " + e.getMessage());
            assertTrue(e.getMessage().contains("hazelcast-impl") && e.getMessage().contains("limiter-api"),
                    e.getMessage());
        }
    }
}
