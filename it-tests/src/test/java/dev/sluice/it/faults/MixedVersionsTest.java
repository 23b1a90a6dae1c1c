package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Coalescing;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.it.contract.CoreContract;
import dev.sluice.it.contract.RealTimeAccuracy;
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
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A client on this JVM's Hazelcast against two member JVMs on another release: the members' classpath is this
 * test's with the Hazelcast jar swapped for release {@value #MEMBER_VERSION_PROPERTY} from the local Maven
 * repository (the compatibility run sets it, e.g. a 5.5 client against 5.7 members and the reverse; unset, the test
 * is skipped: on one release it would repeat {@code FaultClientServerTest} and the real-time suite). The Sluice
 * classes are the same on both sides, as with one published jar. Checks
 * that the members really run that release, then exactness from two clients (plain and coalescing) and every
 * algorithm on the real clock.
 */
@ExtendWith(Reaper.class)
final class MixedVersionsTest {
    static final String MEMBER_VERSION_PROPERTY = "sluice.compat.memberHazelcast";
    private static final Pattern HAZELCAST_JAR = Pattern.compile(
            "(.*[/\\\\]com[/\\\\]hazelcast[/\\\\]hazelcast[/\\\\])([^/\\\\]+)[/\\\\]hazelcast-\\2\\.jar");
    private static final long LIMIT = 100;

    private static String memberVersion;
    private static FaultCluster cluster;
    private static List<RateLimiters> replicas;

    @BeforeAll
    static void start() {
        assumeTrue(System.getProperty(MEMBER_VERSION_PROPERTY) != null, "no other release named");
        List<String> entries = new ArrayList<>();
        String own = null;
        for (String entry : MemberProcess.testClasspath()) {
            Matcher m = HAZELCAST_JAR.matcher(entry);
            if (m.matches()) {
                own = m.group(2);
                String wanted = System.getProperty(MEMBER_VERSION_PROPERTY, own);
                Path jar = Path.of(m.group(1), wanted, "hazelcast-" + wanted + ".jar");
                assertTrue(Files.isRegularFile(jar), "no Hazelcast " + wanted + " in the local repository: " + jar);
                entries.add(jar.toString());
            } else {
                entries.add(entry);
            }
        }
        assertTrue(own != null, "no Hazelcast jar on the test classpath");
        memberVersion = System.getProperty(MEMBER_VERSION_PROPERTY, own);
        cluster = FaultCluster.start("faults-mixed-versions", 2, String.join(File.pathSeparator, entries));
        replicas = new ArrayList<>();
        for (Coalescing coalescing : List.of(Coalescing.disabled(), Coalescing.on())) {
            HazelcastInstance client = cluster.client(Duration.ofSeconds(5));
            FaultCluster.awaitMembers(client, 2, Duration.ofSeconds(30));
            replicas.add(HazelcastRateLimiters.create(client, coalescing));
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

    @Test
    void members_runTheOtherRelease() {
        HazelcastInstance client = cluster.client(Duration.ofSeconds(5));
        FaultCluster.awaitMembers(client, 2, Duration.ofSeconds(30));
        for (Member member : client.getCluster().getMembers()) {
            assertTrue(memberVersion.startsWith(member.getVersion().toString()),
                    member + " runs " + member.getVersion() + ", not " + memberVersion);
        }
    }

    static Stream<LimitSpec> limit100() {
        Duration day = Duration.ofDays(1);
        return Stream.of(LimitSpec.fixedWindow(LIMIT, day), LimitSpec.slidingLog(LIMIT, day),
                LimitSpec.tokenBucket(LIMIT, 1, day), LimitSpec.concurrency(LIMIT, Duration.ofMinutes(1)));
    }

    /** 1,000 acquisitions from 32 threads over a plain and a coalescing client grant exactly the limit. */
    @ParameterizedTest
    @MethodSource("limit100")
    void tryAcquire_concurrentFromTwoClients_grantsExactlyTheLimit(LimitSpec spec) throws Exception {
        Windows.avoidBoundary(Duration.ofDays(1), Duration.ofSeconds(30));
        String name = "mixed-" + UUID.randomUUID();
        LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build();
        List<RateLimiter> limiters = replicas.stream().map(r -> r.limiter(name, spec, options)).toList();
        int granted = CoreContract.grantedFrom32Threads(limiters, 1_000);
        assertEquals(LIMIT, granted, spec.algorithm() + " against Hazelcast " + memberVersion + " members");
    }

    @Test
    void everyAlgorithm_realClockShortWindows_staysWithinItsBound() throws Exception {
        LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build();
        List<RealTimeAccuracy.Result> run = RealTimeAccuracy.run("mixed-" + memberVersion, replicas,
                RealTimeAccuracy.specs(), options, Duration.ofSeconds(2), 4);
        assertAll(run.stream().map(r -> () -> assertTrue(r.ok(), r.row())));
    }
}
