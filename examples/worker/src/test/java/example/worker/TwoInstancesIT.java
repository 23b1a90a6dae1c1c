package example.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Two {@code java -jar} instances of the packaged worker, each an embedded Hazelcast member, share one
 * budget: once both have been refused, exactly 10 mails were sent between them. Runs after {@code package}
 * ({@code mvn verify}); Hazelcast's ports are free ones ({@code --example.hazelcast-port}), with a copy of
 * hazelcast.yaml whose cluster name is the run's own.
 */
class TwoInstancesIT {

    @Test
    void twoInstances_shareOneBudget() throws Exception {
        int hazelcast = twoFreePorts();
        Path dir = Path.of("target", "it");
        Path config = dir.resolve("hazelcast.yaml");
        Files.createDirectories(dir);
        Files.writeString(config, Files.readString(Path.of("src", "main", "resources", "hazelcast.yaml"))
                .replace("sluice-example-worker", "sluice-example-worker-" + UUID.randomUUID()));
        List<Process> instances = new ArrayList<>();
        List<Path> logs = List.of(dir.resolve("instance-0.log"), dir.resolve("instance-1.log"));
        try {
            for (Path log : logs) {
                instances.add(start(hazelcast, config, log));
            }
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (!(count(logs.get(0), "refused a mail") > 0 && count(logs.get(1), "refused a mail") > 0)) {
                for (int i = 0; i < 2; i++) {
                    if (!instances.get(i).isAlive()) {
                        throw new AssertionError("instance " + i + " exited:\n" + Files.readString(logs.get(i)));
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("not both refused:\n" + Files.readString(logs.get(0)) + "\n"
                            + Files.readString(logs.get(1)));
                }
                Thread.sleep(200);
            }
            assertThat(count(logs.get(0), "sent a mail") + count(logs.get(1), "sent a mail"))
                    .as("10 an hour, on both instances together").isEqualTo(10);
        } finally {
            instances.forEach(Process::destroy);
            for (Process p : instances) {
                p.waitFor();
            }
        }
    }

    /** {@code java -jar target/sluice-example-worker.jar}: the manifest carries Hazelcast's flags. */
    private static Process start(int hazelcast, Path config, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-jar", Path.of("target", "sluice-example-worker.jar").toString(),
                "--spring.hazelcast.config=file:" + config.toAbsolutePath(),
                "--example.hazelcast-port=" + hazelcast)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static long count(Path log, String text) throws IOException {
        return Files.exists(log) ? Files.readAllLines(log).stream().filter(l -> l.contains(text)).count() : 0;
    }

    /** A free port whose next is free too: the member's and its peer's ({@code example.hazelcast-port}). */
    private static int twoFreePorts() throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port = freePort();
            if (port < 65535) {
                try {
                    new ServerSocket(port + 1).close();
                    return port;
                } catch (IOException taken) {
                    // try another
                }
            }
        }
        throw new IOException("no two consecutive free ports");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
