package dev.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Distributed end to end: both demo instances (two Hazelcast members and two Jetty servers on
 * 127.0.0.1, all on free ports) in one test, called over real HTTP. Every test uses its own API keys.
 */
final class DemoTest {
    /** One client for every test: {@code HttpClient} cannot be closed on Java 17. */
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private static DemoCluster cluster;

    @BeforeAll
    static void startDemo() throws Exception {
        cluster = DemoCluster.start(settings(false));
    }

    @AfterAll
    static void stopDemo() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void burst_splitAcrossInstances_admitsExactlyTheLimitForOneClient() {
        String key = newKey();
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            sent.add(sendAsync(i % 2 == 0 ? cluster.a() : cluster.b(), "/api/sliding-log", key));
        }
        List<HttpResponse<String>> responses = sent.stream().map(CompletableFuture::join).toList();

        assertEquals(10, responses.stream().filter(r -> r.statusCode() == 200).count(), () -> statuses(responses));
        assertEquals(20, responses.stream().filter(r -> r.statusCode() == 429).count(), () -> statuses(responses));
        assertTrue(responses.stream().filter(r -> r.statusCode() == 429)
                .allMatch(r -> Tour.retryAfterSeconds(r).filter(s -> s >= 1).isPresent()), "429 without Retry-After");
        assertTrue(responses.stream().noneMatch(r -> r.headers().firstValue("RateLimit-Degraded").isPresent()),
                "a decision was degraded");
        assertTrue(responses.stream().anyMatch(r -> r.statusCode() == 200 && r.body().contains("\"instance\":\"A\""))
                && responses.stream().anyMatch(r -> r.statusCode() == 200 && r.body().contains("\"instance\":\"B\"")),
                "both instances should have granted some: " + statuses(responses));
    }

    @Test
    void separateClients_haveSeparateBudgets_eachSharedAcrossInstances() throws Exception {
        String alice = newKey();
        String bob = newKey();
        for (int i = 0; i < 10; i++) {
            assertEquals(200, get(i % 2 == 0 ? cluster.a() : cluster.b(), "/api/sliding-log", alice).statusCode());
        }
        assertEquals(429, get(cluster.a(), "/api/sliding-log", alice).statusCode());
        assertEquals(429, get(cluster.b(), "/api/sliding-log", alice).statusCode());

        HttpResponse<String> bobOnB = get(cluster.b(), "/api/sliding-log", bob);
        HttpResponse<String> bobOnA = get(cluster.a(), "/api/sliding-log", bob);

        assertEquals(200, bobOnB.statusCode());
        assertEquals(200, bobOnA.statusCode());
        assertTrue(Tour.remainingIs(bobOnA, 8),
                () -> "bob's second request, on the other instance: " + bobOnA.headers().map());
    }

    @Test
    void everyEndpoint_onBothInstances_answersWithItsPolicyAndTheServingInstance() throws Exception {
        String key = newKey();
        for (String policy : DemoPolicies.specs().keySet()) {
            for (DemoInstance instance : List.of(cluster.a(), cluster.b())) {
                HttpResponse<String> r = get(instance, "/api/" + policy, key);

                assertEquals(200, r.statusCode(), policy);
                assertTrue(r.body().contains("\"instance\":\"" + instance.name() + "\""), r.body());
                assertTrue(r.headers().firstValue("RateLimit-Policy").orElseThrow()
                        .startsWith("\"" + policy + "\";q=10"), () -> policy + ": " + r.headers().map());
            }
        }
    }

    @Test
    void concurrency_elevenSlowRequestsAtOnce_admitsTenAndReleasesAfterwards() throws Exception {
        String key = newKey();
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            sent.add(sendAsync(i % 2 == 0 ? cluster.a() : cluster.b(), "/api/concurrency?sleep=3000", key));
        }
        List<HttpResponse<String>> responses = sent.stream().map(CompletableFuture::join).toList();

        assertEquals(10, responses.stream().filter(r -> r.statusCode() == 200).count(), () -> statuses(responses));
        assertEquals(1, responses.stream().filter(r -> r.statusCode() == 429).count(), () -> statuses(responses));
        assertEquals(200, get(cluster.b(), "/api/concurrency", key).statusCode(), "leases released after the work");
    }

    @Test
    void tourOnly_everyCheckHolds_returnsZero() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        int status = SluiceDemo.run(settings(true), out);

        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, printed);
        assertTrue(printed.contains("Every check held."), printed);
        assertTrue(!printed.contains("FAILED"), printed);
    }

    /** A fresh cluster name, free HTTP ports, Hazelcast on two ports the system reports free. */
    private static DemoSettings settings(boolean tourOnly) throws IOException {
        int[] hazelcast = new int[2];
        // Both sockets open at once, so the two ports differ.
        try (ServerSocket a = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                ServerSocket b = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            hazelcast[0] = a.getLocalPort();
            hazelcast[1] = b.getLocalPort();
        }
        return new DemoSettings("sluice-demo-test-" + UUID.randomUUID(), "127.0.0.1", 0, 0, hazelcast[0],
                hazelcast[1], tourOnly);
    }

    private static String newKey() {
        return "test-" + UUID.randomUUID();
    }

    private static HttpRequest request(DemoInstance instance, String path, String apiKey) {
        return HttpRequest.newBuilder(URI.create(instance.baseUri() + path)).timeout(Duration.ofSeconds(20))
                .header("X-Api-Key", apiKey).GET().build();
    }

    private static HttpResponse<String> get(DemoInstance instance, String path, String apiKey) throws Exception {
        return CLIENT.send(request(instance, path, apiKey), HttpResponse.BodyHandlers.ofString());
    }

    private static CompletableFuture<HttpResponse<String>> sendAsync(DemoInstance instance, String path, String key) {
        return CLIENT.sendAsync(request(instance, path, key), HttpResponse.BodyHandlers.ofString());
    }

    private static String statuses(List<HttpResponse<String>> responses) {
        return responses.stream().map(r -> r.statusCode() + "").toList().toString();
    }
}
