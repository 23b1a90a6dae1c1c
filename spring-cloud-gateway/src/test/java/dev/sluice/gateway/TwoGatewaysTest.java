package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.app.GatewayApp;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two real gateways (each with an embedded Hazelcast member of one cluster) routing to a real backend share
 * one budget, through the Sluice filter and through the gateway's own RequestRateLimiter on Sluice.
 */
class TwoGatewaysTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static Backend backend;
    private static final List<ConfigurableApplicationContext> gateways = new ArrayList<>();
    private static final int[] ports = new int[2];

    @BeforeAll
    static void start() throws Exception {
        backend = Backend.echoing(path -> "backend " + path);
        int[] members = {freePort(), freePort()};
        Path config = Files.createTempFile("sluice-gateway", ".yaml");
        Files.writeString(config, """
                hazelcast:
                  cluster-name: sluice-gateway-%s
                  properties: {hazelcast.phone.home.enabled: false, hazelcast.socket.bind.any: false}
                  network:
                    port: {port: %d, auto-increment: true, port-count: 2}
                    interfaces: {enabled: true, interfaces: [127.0.0.1]}
                    join:
                      multicast: {enabled: false}
                      auto-detection: {enabled: false}
                      tcp-ip: {enabled: true, member-list: [127.0.0.1:%d, 127.0.0.1:%d]}
                """.formatted(UUID.randomUUID(), members[0], members[0], members[1]));
        String backendUri = backend.uri();
        String routes = "--spring.cloud.gateway.server.webflux.routes";
        for (int i = 0; i < 2; i++) {
            ports[i] = freePort();
            gateways.add(SpringApplication.run(GatewayApp.class, "--server.port=" + ports[i],
                    "--spring.main.web-application-type=reactive",
                    "--spring.hazelcast.config=file:" + config.toAbsolutePath(),
                    "--sluice.policies.per-client.algorithm=sliding-log", "--sluice.policies.per-client.permit-limit=10",
                    "--sluice.policies.per-client.window=1m",
                    "--sluice.policies.gateway-rrl.algorithm=sliding-log", "--sluice.policies.gateway-rrl.permit-limit=5",
                    "--sluice.policies.gateway-rrl.window=1m",
                    routes + "[0].id=sluice", routes + "[0].uri=" + backendUri,
                    routes + "[0].predicates[0]=Path=/sluice/**", routes + "[0].filters[0]=Sluice=per-client",
                    routes + "[1].id=rrl", routes + "[1].uri=" + backendUri,
                    routes + "[1].predicates[0]=Path=/rrl/**", routes + "[1].filters[0].name=RequestRateLimiter",
                    routes + "[1].filters[0].args[sluice-rate-limiter.policy]=gateway-rrl"));
        }
    }

    @AfterAll
    static void stop() {
        gateways.forEach(ConfigurableApplicationContext::close);
        if (backend != null) {
            backend.close();
        }
    }

    @Test
    void sluiceFilter_twoGatewaysShareOneBudget_andRefuseWithTheFiltersHeadersAndProblem() throws Exception {
        List<HttpResponse<String>> answers = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            answers.add(get(ports[i % 2], "/sluice/hello"));
        }
        assertThat(answers.stream().filter(r -> r.statusCode() == 200).count()).isEqualTo(10);
        HttpResponse<String> granted = answers.get(0);
        assertThat(granted.body()).isEqualTo("backend /sluice/hello");
        assertThat(granted.headers().firstValue("RateLimit-Policy")).hasValue("\"per-client\";q=10;w=60");
        List<HttpResponse<String>> refused = answers.stream().filter(r -> r.statusCode() != 200).toList();
        assertThat(refused).hasSize(2).allSatisfy(r -> {
            assertThat(r.statusCode()).isEqualTo(429);
            assertThat(r.headers().firstValue("Retry-After")).isPresent();
            assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                    t -> assertThat(t).startsWith("application/problem+json"));
            assertThat(r.body()).contains("\"violated-policies\":[\"per-client\"]");
        });
    }

    @Test
    void requestRateLimiterOnSluice_twoGatewaysShareOneBudget() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        HttpResponse<String> last = null;
        for (int i = 0; i < 7; i++) {
            last = get(ports[i % 2], "/rrl/hello");
            statuses.add(last.statusCode());
        }
        assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429, 429);
        assertThat(last.headers().firstValue("Retry-After")).isPresent();
        assertThat(last.headers().firstValue("RateLimit-Policy")).hasValue("\"gateway-rrl\";q=5;w=60");
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
