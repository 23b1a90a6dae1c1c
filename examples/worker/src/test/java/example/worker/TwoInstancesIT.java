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
 * ({@code mvn verify}); ports are free ones, written into a copy of hazelcast.yaml with a cluster name of the
 * run's own.
 */
class TwoInstancesIT {

    @Test
    void twoInstances_shareOneBudget() throws Exception {
        int[] hazelcast = {freePort(), freePort()};
        Path dir = Path.of("target", "it");
        Path config = dir.resolve("hazelcast.yaml");
        Files.createDirectories(dir);
        Files.writeString(config, Files.readString(Path.of("src", "main", "resources", "hazelcast.yaml"))
                .replace("sluice-example-worker", "sluice-example-worker-" + UUID.randomUUID())
                .replace("port: 5701", "port: " + hazelcast[0])
                .replace("127.0.0.1:5701", "127.0.0.1:" + hazelcast[0])
                .replace("127.0.0.1:5702", "127.0.0.1:" + hazelcast[1]));
        List<Process> instances = new ArrayList<>();
        List<Path> logs = List.of(dir.resolve("instance-0.log"), dir.resolve("instance-1.log"));
        try {
            for (Path log : logs) {
                instances.add(start(config, log));
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
    private static Process start(Path config, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-jar", Path.of("target", "sluice-example-worker.jar").toString(),
                "--spring.hazelcast.config=file:" + config.toAbsolutePath())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static long count(Path log, String text) throws IOException {
        return Files.exists(log) ? Files.readAllLines(log).stream().filter(l -> l.contains(text)).count() : 0;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
