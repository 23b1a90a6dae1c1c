package dev.sluice.it.readme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.it.hazelcast.FreePorts;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiters;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The README's client-server steps, followed literally: the member jar that {@code mvn package} builds, started
 * with {@code java -jar} in two JVMs of their own (the README's command, with the port property it names, and
 * a second with the properties it names), then the README's client block, compiled and run in this JVM, with the
 * first member's free port in place of 5701. The budget is the
 * members': the client block takes one permit of "login", and another client sees it gone.
 */
final class ReadmeClientServerTest {
    private static final Path MEMBER_JAR = Path.of("..", "hazelcast-impl", "target",
            "sluice-member-" + System.getProperty("sluice.version") + ".jar");

    @Test
    void readmeSteps_memberJarAndClientBlock_shareOneBudget() throws Throwable {
        assertTrue(Files.isRegularFile(MEMBER_JAR), MEMBER_JAR.toAbsolutePath() + " is missing: it is built by"
                + " 'mvn package' (the README's test command, mvn verify, builds it before this module's tests)");
        assertTrue(Readme.text().contains("java -jar hazelcast-impl/target/sluice-member-"), "the README's command");
        List<Process> members = new ArrayList<>();
        try {
            // The README's ports (5701, 5702) become free ones, so that a member or a build beside this one on
            // the machine neither breaks the test nor joins it: the first member, the second's member list and
            // the client block's address move together.
            int[] ports = FreePorts.take(2);
            List<String> addresses = FreePorts.addresses(ports);
            members.add(start(List.of("-Dsluice.member.port=" + ports[0])));
            members.add(start(List.of("-Dsluice.member.port=" + ports[1],
                    "-Dsluice.member.members=" + String.join(",", addresses))));
            awaitOneServingClusterOfTwo(addresses);
            Readme.Snippet block = Readme.snippets().stream().filter(s -> s.marker().equals("client")).findFirst()
                    .orElseThrow(() -> new AssertionError("no <!-- client --> block in the README or docs/"));
            assertTrue(block.code().contains("\"127.0.0.1:5701\""), "the client block connects to the README's member");
            Readme.Snippet client = new Readme.Snippet(block.file(), block.line(), block.marker(),
                    block.code().replace("\"127.0.0.1:5701\"", "\"" + addresses.get(0) + "\""));
            Readme.run(client, Readme.compile(client));

            ClientConfig cc = SluiceHazelcast.configure(new ClientConfig());
            cc.setClusterName("sluice");
            cc.getNetworkConfig().addAddress(addresses.get(1));
            HazelcastInstance other = HazelcastClient.newHazelcastClient(cc);
            try (RateLimiters limiters = HazelcastRateLimiters.create(other)) {
                long left = limiters.limiter("login", LimitSpec.fixedWindow(10, Duration.ofMinutes(1)))
                        .tryAcquire(0).remaining();
                assertEquals(9, left, "the README client's permit is gone for every client of the cluster");
            } finally {
                other.shutdown();
            }
        } finally {
            members.forEach(Process::destroyForcibly);
        }
    }

    /**
     * Waits until the two members are one cluster, and has it serve a few decisions. On a busy machine the second
     * member's join can time out, so that it starts a cluster of its own and the two merge later, which restarts one
     * of them and drops its clients: the README's client would then meet a cluster that is still forming, which is
     * not what the README describes.
     */
    private static void awaitOneServingClusterOfTwo(List<String> addresses) throws InterruptedException {
        ClientConfig cc = SluiceHazelcast.configure(new ClientConfig());
        cc.setClusterName("sluice");
        addresses.forEach(cc.getNetworkConfig()::addAddress);
        HazelcastInstance watcher = HazelcastClient.newHazelcastClient(cc);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (watcher.getCluster().getMembers().size() < 2 && System.nanoTime() - deadline < 0) {
                Thread.sleep(50);
            }
            assertEquals(2, watcher.getCluster().getMembers().size(), "the two members formed one cluster");
            // A cluster that has served before, as the README's client meets one: the members have created the map
            // and loaded and compiled the decision path. On a loaded machine, a cold member's first decision can
            // outlast the README's one-second decision timeout, which would then rightly fail the README's client.
            try (RateLimiters limiters = HazelcastRateLimiters.create(watcher)) {
                for (int i = 0; i < 20; i++) {
                    limiters.limiter("warm-up-" + i, LimitSpec.fixedWindow(10, Duration.ofMinutes(1)),
                            LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).build()).tryAcquire(1);
                }
            }
        } finally {
            watcher.shutdown();
        }
    }

    /** {@code java [properties] -jar sluice-member.jar}, waiting for its "started" line. */
    private static Process start(List<String> properties) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Dhazelcast.logging.type=none");
        command.add("-Dhazelcast.phone.home.enabled=false");
        command.addAll(properties);
        command.add("-jar");
        command.add(MEMBER_JAR.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String started = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line; (line = out.readLine()) != null; ) {
                    seen.append(line).append('\n');
                    if (line.startsWith("Sluice member ")) {
                        return line;
                    }
                }
                return null;
            } catch (java.io.IOException e) {
                return null;
            }
        }).get(90, TimeUnit.SECONDS);
        assertTrue(started != null && started.contains("started in cluster 'sluice'"), "member output:\n" + seen);
        Thread drain = new Thread(() -> out.lines().forEach(l -> { }), "member-output");
        drain.setDaemon(true);
        drain.start();
        return process;
    }
}
