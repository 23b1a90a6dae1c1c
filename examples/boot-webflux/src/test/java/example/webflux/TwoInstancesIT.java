package example.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The README's commands: two {@code java -jar} instances of the packaged application, each an embedded
 * Hazelcast member, share one budget. Runs after {@code package} ({@code mvn verify}); ports are free ones
 * (Hazelcast's through {@code --example.hazelcast-port}), with a copy of hazelcast.yaml whose cluster name is the
 * run's own.
 */
class TwoInstancesIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void twoInstances_shareOneBudget() throws Exception {
        int[] http = {freePort(), freePort()};
        int hazelcast = twoFreePorts();
        Path config = Path.of("target", "it", "hazelcast.yaml");
        Files.createDirectories(config.getParent());
        Files.writeString(config, Files.readString(Path.of("src", "main", "resources", "hazelcast.yaml"))
                .replace("sluice-example-webflux", "sluice-example-webflux-" + UUID.randomUUID()));
        List<Process> instances = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                instances.add(start(hazelcast, http[i], config, Path.of("target", "it", "instance-" + i + ".log")));
            }
            for (int i = 0; i < 2; i++) {
                awaitUp(instances.get(i), http[i], Path.of("target", "it", "instance-" + i + ".log"));
            }
            int granted = 0;
            int refused = 0;
            for (int i = 0; i < 12; i++) {
                HttpResponse<String> r = get(http[i % 2], "/api/hello");
                if (r.statusCode() == 200) {
                    granted++;
                } else if (r.statusCode() == 429) {
                    refused++;
                    assertThat(r.headers().firstValue("Retry-After")).isPresent();
                    assertThat(r.body()).contains("\"violated-policies\":[\"per-client\"]");
                }
            }
            assertThat(granted).as("10 a minute, on both instances together").isEqualTo(10);
            assertThat(refused).isEqualTo(2);
            List<Integer> reports = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                reports.add(get(http[i % 2], "/reports/" + i).statusCode());
            }
            assertThat(reports).containsExactly(200, 200, 200, 429);
        } finally {
            instances.forEach(Process::destroy);
            for (Process p : instances) {
                p.waitFor();
            }
        }
    }

    /** {@code java -jar target/sluice-example-webflux.jar --server.port=...}: the manifest carries Hazelcast's flags. */
    private static Process start(int hazelcast, int port, Path config, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-jar", Path.of("target", "sluice-example-webflux.jar").toString(),
                "--server.port=" + port, "--spring.hazelcast.config=file:" + config.toAbsolutePath(),
                "--example.hazelcast-port=" + hazelcast)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static void awaitUp(Process process, int port, Path log) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("the instance on port " + port + " exited:\n" + Files.readString(log));
            }
            try {
                if (get(port, "/actuator/health").statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the instance on port " + port + " did not start:\n" + Files.readString(log));
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
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
