package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.core.HazelcastInstance;
import com.jayway.jsonpath.JsonPath;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.spring.servletapp.ServletApp;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two Spring MVC applications, each with Boot's Hazelcast member from {@code hazelcast.yaml} (on ports the
 * system reports free, which the file reads from system properties) and no Sluice code but
 * {@code application.yml} (the README's) and one {@link RateLimited} method, form one cluster and share one
 * budget per client.
 */
@SpringBootTest(classes = ServletApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ServletClusterTest {
    private static final int[] PORTS = FreePorts.take(2);
    private static ConfigurableApplicationContext second;
    private static int secondPort;

    static {
        System.setProperty("sluice.test.servlet.first", Integer.toString(PORTS[0]));
        System.setProperty("sluice.test.servlet.second", Integer.toString(PORTS[1]));
        System.setProperty("sluice.test.servlet.port", Integer.toString(PORTS[0]));
    }

    @LocalServerPort
    int port;

    @Autowired
    HazelcastInstance hazelcast;

    @Autowired
    MeterRegistry meters;

    @BeforeAll
    static void startSecondInstance() {
        // One YAML file for both members, each reading its port when its application starts: the test's own
        // application takes the first port, before or after this one.
        System.setProperty("sluice.test.servlet.port", Integer.toString(PORTS[1]));
        second = new SpringApplicationBuilder(ServletApp.class).run("--server.port=0");
        System.setProperty("sluice.test.servlet.port", Integer.toString(PORTS[0]));
        secondPort = Integer.parseInt(second.getEnvironment().getProperty("local.server.port"));
    }

    @AfterAll
    static void stopSecondInstance() {
        second.close();
    }

    @Test
    void bootsMember_hasSluicesMapsAndSerialization_andFormsOneCluster() {
        assertThat(hazelcast.getCluster().getMembers()).hasSize(2);
        MapConfig map = hazelcast.getConfig().getMapConfig(SluiceHazelcast.DEFAULT_MAP_NAME);
        assertThat(map.getInMemoryFormat()).isEqualTo(InMemoryFormat.OBJECT);
        assertThat(map.getBackupCount()).isEqualTo(1);
        assertThat(hazelcast.getConfig().getSerializationConfig().getDataSerializableFactories()).isNotEmpty();
        assertThat(hazelcast.getCluster().getLocalMember().getAddress().getPort()).isEqualTo(PORTS[0]);
    }

    @Test
    void burstSplitAcrossBothInstances_exactlyTheLimitIsGranted() {
        List<HttpResponse<String>> responses = Http.burst(30, "/api/hello", port, secondPort);

        assertThat(Http.count(responses, 200)).isEqualTo(20); // per-client: 20 in any minute, one budget
        assertThat(Http.count(responses, 429)).isEqualTo(10);
        HttpResponse<String> granted = responses.stream().filter(r -> r.statusCode() == 200).findFirst().orElseThrow();
        assertThat(granted.headers().firstValue("RateLimit-Policy")).hasValue(
                "\"per-client\";q=20;w=60, \"everyone\";q=1000;w=10");
        HttpResponse<String> refused = responses.stream().filter(r -> r.statusCode() == 429).findFirst().orElseThrow();
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json;charset=UTF-8");
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).isBetween(1L, 60L);
        assertThat(refused.body()).startsWith("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"The rate limit of policy 'per-client' is exhausted");
        assertThat(refused.body()).contains("\"violated-policies\":[\"per-client\"]");

        // Both instances' Micrometer registries saw their share of the decisions.
        double here = meters.get("sluice.decisions").tag("limiter", "per-client").timers().stream()
                .mapToDouble(t -> t.count()).sum();
        double there = second.getBean(MeterRegistry.class).get("sluice.decisions").tag("limiter", "per-client")
                .timers().stream().mapToDouble(t -> t.count()).sum();
        assertThat(here + there).isEqualTo(30);
        assertThat(here).isPositive();
        assertThat(there).isPositive();
    }

    @Test
    void pathsNoRouteNames_passWithoutHeaders() throws Exception {
        HttpResponse<String> r = Http.get(port, "/open");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("RateLimit-Policy")).isEmpty();
    }

    @Test
    void rateLimitedMethod_refusesPerKey_with429AndProblemBody_acrossInstances() throws Exception {
        assertThat(Http.get(port, "/reports", "X-Test-User", "ann").statusCode()).isEqualTo(200);
        assertThat(Http.get(secondPort, "/reports", "X-Test-User", "ann").statusCode()).isEqualTo(200);
        assertThat(Http.get(port, "/reports", "X-Test-User", "ann").body()).isEqualTo("report for ann");

        HttpResponse<String> refused = Http.get(secondPort, "/reports", "X-Test-User", "ann");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json;charset=UTF-8");
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"reports\";q=3;w=3600");
        assertThat(Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow())).isBetween(3000L, 3600L);
        assertThat(refused.body()).contains("\"status\":429", "\"violated-policies\":[\"reports\"]",
                "The rate limit of policy 'reports' is exhausted");

        assertThat(Http.get(port, "/reports", "X-Test-User", "bob").statusCode()).isEqualTo(200); // another key, another budget
    }

    @Test
    void actuator_ratelimitsEndpointAndHealth_overHttp() throws Exception {
        Http.get(port, "/api/hello");
        HttpResponse<String> endpoint = Http.get(port, "/actuator/ratelimits");
        assertThat(endpoint.statusCode()).isEqualTo(200);
        assertThat(endpoint.body()).contains("\"backend\":\"hazelcast-member\"", "\"per-client\":{\"algorithm\":\"sliding-log\",\"limit\":20",
                "\"pattern\":\"/api/*\"", "\"policies\":[\"per-client\",\"everyone\"]");
        assertThat(endpoint.body()).containsPattern("\"requests\":\\{\"granted\":[1-9]");

        HttpResponse<String> one = Http.get(port, "/actuator/ratelimits/reports");
        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(one.body()).contains("\"algorithm\":\"sliding-log\"", "\"failureMode\":\"deny\"");
        assertThat(Http.get(port, "/actuator/ratelimits/no-such-policy").statusCode()).isEqualTo(404);

        HttpResponse<String> health = Http.get(port, "/actuator/health");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat((String) JsonPath.read(health.body(), "$.components.sluice.status")).isEqualTo("UP");
        assertThat((String) JsonPath.read(health.body(), "$.components.sluice.details.backend"))
                .isEqualTo("hazelcast-member");
    }
}
