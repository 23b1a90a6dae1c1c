package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.sluice.spring.servletapp.ServletApp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The locked-out customer found and let back in through Actuator, on a real Tomcat with the in-process store: the
 * read of one client's key under a policy, the client typed as the operator knows it and keyed as the edge keys it;
 * the reset, absent unless {@code sluice.reset-enabled}, and then audited in the log.
 */
@ExtendWith(OutputCaptureExtension.class)
class KeyEndpointTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final String KEY = "/actuator/ratelimits/login/address:127.0.0.1";

    private static ConfigurableApplicationContext app(String... more) {
        List<String> args = new ArrayList<>(List.of("--server.port=0",
                "--spring.autoconfigure.exclude=org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
                "--management.endpoints.web.exposure.include=ratelimits",
                "--sluice.policies.login.algorithm=fixed-window", "--sluice.policies.login.permit-limit=3",
                "--sluice.policies.login.window=PT1H", "--sluice.routes.login.pattern=/whoami",
                "--sluice.routes.login.policy=login"));
        args.addAll(List.of(more));
        return new SpringApplicationBuilder(ServletApp.class).run(args.toArray(String[]::new));
    }

    private static int port(ConfigurableApplicationContext app) {
        return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    private static HttpResponse<String> send(ConfigurableApplicationContext app, String method, String path)
            throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(app) + path))
                .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static void lockOut(ConfigurableApplicationContext app) throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(send(app, "GET", "/whoami").statusCode()).isEqualTo(200);
        }
        assertThat(send(app, "GET", "/whoami").statusCode()).isEqualTo(429);
    }

    @Test
    void read_findsTheLockedOutClient_andResetIsNotOfferedByDefault() throws Exception {
        try (ConfigurableApplicationContext app = app()) {
            lockOut(app);
            HttpResponse<String> read = send(app, "GET", KEY);
            assertThat(read.statusCode()).isEqualTo(200);
            assertThat((String) JsonPath.read(read.body(), "$.identity")).isEqualTo("ip:127.0.0.1");
            assertThat((String) JsonPath.read(read.body(), "$.partition")).matches("[A-Za-z0-9_-]{24}");
            assertThat((Integer) JsonPath.read(read.body(), "$.remaining")).isZero();
            assertThat((Integer) JsonPath.read(read.body(), "$.limit")).isEqualTo(3);
            assertThat((String) JsonPath.read(read.body(), "$.algorithm")).isEqualTo("fixed-window");
            assertThat((Boolean) JsonPath.read(read.body(), "$.ownState")).isTrue();
            assertThat((String) JsonPath.read(read.body(), "$.retryAfter")).startsWith("PT");

            assertThat(send(app, "DELETE", KEY).statusCode()).isIn(404, 405);
            assertThat(send(app, "GET", "/whoami").statusCode()).as("still locked out").isEqualTo(429);
            assertThat(send(app, "GET", "/actuator/ratelimits/login/email:someone").statusCode()).isEqualTo(400);
            assertThat(send(app, "GET", "/actuator/ratelimits/no-such-policy/address:127.0.0.1").statusCode())
                    .isEqualTo(404);
        }
    }

    @Test
    void reset_whenEnabled_letsTheClientBackIn_andIsAudited(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext app = app("--sluice.reset-enabled=true")) {
            lockOut(app);
            String partition = JsonPath.read(send(app, "GET", KEY).body(), "$.partition");

            HttpResponse<String> reset = send(app, "DELETE", KEY);
            assertThat(reset.statusCode()).isEqualTo(200);
            assertThat((Integer) JsonPath.read(reset.body(), "$.remaining")).isEqualTo(3);
            assertThat(output).contains("reset by anonymous: policy 'login', key hash " + partition
                    + ", to a full budget");
            assertThat(output).as("the identity never in clear").doesNotContain("ip:127.0.0.1");
            assertThat(send(app, "GET", "/whoami").statusCode()).as("let back in").isEqualTo(200);

            HttpResponse<String> partial = send(app, "DELETE", KEY + "?remaining=1");
            assertThat((Integer) JsonPath.read(partial.body(), "$.remaining")).isEqualTo(1);
            assertThat(send(app, "GET", "/whoami").statusCode()).isEqualTo(200);
            assertThat(send(app, "GET", "/whoami").statusCode()).isEqualTo(429);

            assertThat(send(app, "DELETE", KEY + "?remaining=4").statusCode()).isEqualTo(400);
            assertThat(output).contains("refused reset by anonymous: policy 'login', key hash " + partition);
        }
    }
}
