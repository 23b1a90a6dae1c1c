package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.jayway.jsonpath.JsonPath;
import dev.sluice.hazelcast.SluiceMember;
import dev.sluice.spring.servletapp.ServletApp;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * An application whose Hazelcast is a client (Boot's, from {@code client-hazelcast.yaml}, which names no
 * Sluice serialization: the starter adds it) of a member started as {@link SluiceMember} starts it (its
 * config from {@code sluice-member.yaml}, on a port the system reports free, which both YAML files
 * read from a system property). When the member is gone, health is DOWN and requests
 * follow the policies' failure mode.
 */
class ClientModeTest {
    private static HazelcastInstance member;
    private static ConfigurableApplicationContext app;

    /**
     * The two files with a free port and a cluster name of this run: with a fixed port and one name, a client could
     * fail over to another build's member on the same machine, and decide there after its own member is gone.
     */
    @BeforeAll
    static void start() throws Exception {
        System.setProperty("sluice.test.member.port", Integer.toString(FreePorts.take()));
        String cluster = "sluice-spring-client-" + java.util.UUID.randomUUID();
        java.nio.file.Path dir = java.nio.file.Files.createDirectories(java.nio.file.Path.of("target", "client-mode"));
        java.nio.file.Path memberConfig = dir.resolve("sluice-member.yaml");
        java.nio.file.Path clientConfig = dir.resolve("client-hazelcast.yaml");
        for (String[] file : new String[][] {{"sluice-member.yaml", memberConfig.toString()},
                {"client-hazelcast.yaml", clientConfig.toString()}}) {
            java.nio.file.Files.writeString(java.nio.file.Path.of(file[1]), java.nio.file.Files
                    .readString(java.nio.file.Path.of("target", "test-classes", file[0]))
                    .replace("sluice-spring-client", cluster));
        }
        member = Hazelcast.newHazelcastInstance(SluiceMember.config(new String[] {memberConfig.toString()}));
        app = new SpringApplicationBuilder(ServletApp.class).run("--server.port=0",
                "--spring.hazelcast.config=file:" + clientConfig.toAbsolutePath());
    }

    @AfterAll
    static void stop() {
        app.close();
        if (member.getLifecycleService().isRunning()) {
            member.shutdown();
        }
    }

    private static int port() {
        return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    @Test
    void clientDecidesOnTheMember_thenHealthGoesDownWhenTheMemberDoes() throws Exception {
        HazelcastInstance client = app.getBean(HazelcastInstance.class);
        assertThat(client.getLocalEndpoint()).isNotInstanceOf(com.hazelcast.cluster.Member.class);

        List<HttpResponse<String>> responses = Http.burst(25, "/api/hello", port());
        assertThat(Http.count(responses, 200)).isEqualTo(20);
        assertThat(Http.count(responses, 429)).isEqualTo(5);
        assertThat(member.getMap("sluice").size()).isEqualTo(2); // per-client and everyone, stored on the member
        assertThat(Http.get(port(), "/actuator/ratelimits").body()).contains("\"backend\":\"hazelcast-client\"");
        HttpResponse<String> up = Http.get(port(), "/actuator/health");
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat((String) JsonPath.read(up.body(), "$.components.sluice.status")).isEqualTo("UP");

        member.shutdown();

        HttpResponse<String> down = Http.get(port(), "/actuator/health");
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat((String) JsonPath.read(down.body(), "$.components.sluice.status")).isEqualTo("DOWN");
        assertThat((String) JsonPath.read(down.body(), "$.components.sluice.details.error")).isNotBlank();
        // The policies fail open (allow, the default at the edge) and say so.
        HttpResponse<String> degraded = Http.get(port(), "/api/hello");
        assertThat(degraded.statusCode()).isEqualTo(200);
        assertThat(degraded.headers().firstValue("RateLimit-Degraded")).hasValue("true");
    }
}
