package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.gateway.app.GatewayApp;
import dev.sluice.hazelcast.SluiceHazelcast;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A gateway whose store (a Hazelcast cluster it is a client of) is gone answers by each policy's failure mode:
 * the Sluice filter lets {@code allow} through and answers {@code deny} with the filters' 503; RequestRateLimiter
 * on Sluice refuses {@code deny} with the gateway's 429; {@code local} decides on the gateway's share of the limit,
 * degraded, refusing beyond it with 429.
 */
class GatewayStoreDownTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void storeDown_eachPolicyAnswersByItsFailureMode() throws Exception {
        Backend backend = Backend.echoing(path -> "backend");
        String cluster = "sluice-gateway-down-" + UUID.randomUUID();
        int memberPort = freePort();
        Config config = SluiceHazelcast.configure(new Config()).setClusterName(cluster);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.getNetworkConfig().setPort(memberPort).setPortAutoIncrement(false);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(true).setMembers(List.of("127.0.0.1:" + memberPort));
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        Path client = Files.createTempFile("sluice-gateway-client", ".yaml");
        Files.writeString(client, """
                hazelcast-client:
                  cluster-name: %s
                  properties: {hazelcast.client.invocation.timeout.seconds: 2}
                  network: {cluster-members: [127.0.0.1:%d]}
                  connection-strategy: {reconnect-mode: ASYNC}
                """.formatted(cluster, memberPort));
        String uri = backend.uri();
        String routes = "--spring.cloud.gateway.server.webflux.routes";
        int port = freePort();
        try (ConfigurableApplicationContext gateway = SpringApplication.run(GatewayApp.class, "--server.port=" + port,
                "--spring.main.web-application-type=reactive", "--spring.hazelcast.config=file:" + client.toAbsolutePath(),
                "--sluice.policies.open.algorithm=sliding-log", "--sluice.policies.open.permit-limit=100",
                "--sluice.policies.open.window=1m", "--sluice.policies.open.failure-mode=allow",
                "--sluice.policies.closed.algorithm=sliding-log", "--sluice.policies.closed.permit-limit=100",
                "--sluice.policies.closed.window=1m", "--sluice.policies.closed.failure-mode=deny",
                "--sluice.policies.local.algorithm=sliding-log", "--sluice.policies.local.permit-limit=5",
                "--sluice.policies.local.window=1m", "--sluice.policies.local.failure-mode=local",
                "--sluice.policies.local.fallback-replicas=2",
                routes + "[0].id=open", routes + "[0].uri=" + uri, routes + "[0].predicates[0]=Path=/open/**",
                routes + "[0].filters[0]=Sluice=open",
                routes + "[1].id=closed", routes + "[1].uri=" + uri, routes + "[1].predicates[0]=Path=/closed/**",
                routes + "[1].filters[0]=Sluice=closed",
                routes + "[2].id=rrl", routes + "[2].uri=" + uri, routes + "[2].predicates[0]=Path=/rrl/**",
                routes + "[2].filters[0].name=RequestRateLimiter",
                routes + "[2].filters[0].args[sluice-rate-limiter.policy]=closed",
                routes + "[3].id=local", routes + "[3].uri=" + uri, routes + "[3].predicates[0]=Path=/local/**",
                routes + "[3].filters[0]=Sluice=local")) {
            assertThat(get(port, "/closed/x").statusCode()).isEqualTo(200); // the store decides
            assertThat(get(port, "/rrl/x").statusCode()).isEqualTo(200);
            member.shutdown();

            HttpResponse<String> open = get(port, "/open/x");
            assertThat(open.statusCode()).isEqualTo(200);
            assertThat(open.body()).isEqualTo("backend");
            HttpResponse<String> closed = get(port, "/closed/x");
            assertThat(closed.statusCode()).isEqualTo(503);
            assertThat(closed.body()).contains("temporary-reduced-capacity", "\"violated-policies\":[\"closed\"]");
            assertThat(get(port, "/rrl/x").statusCode()).isEqualTo(429);
            // 5 over 2 replicas: this gateway's share is 2, decided here while the store is away.
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> granted = get(port, "/local/x");
                assertThat(granted.statusCode()).isEqualTo(200);
                assertThat(granted.headers().firstValue("RateLimit-Degraded")).hasValue("true");
            }
            HttpResponse<String> refused = get(port, "/local/x");
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("RateLimit-Degraded")).hasValue("true");
        } finally {
            member.getLifecycleService().terminate();
            backend.close();
        }
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
