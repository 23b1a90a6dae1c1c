package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The reset behind Spring Security (Basic, every request authenticated): a user locked out of a policy keyed on the
 * principal is found by name and let back in by an operator, and the audit line names the operator. Run in the
 * {@code spring-security} execution.
 */
@EnabledIf("dev.sluice.spring.MvcSecurityTest#securityPresent")
@ExtendWith(OutputCaptureExtension.class)
final class KeyEndpointSecurityTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private static HttpResponse<String> send(int port, String method, String path, String user) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(60)).header("Authorization", "Basic " + Base64.getEncoder()
                        .encodeToString((user + ":secret").getBytes(StandardCharsets.UTF_8)))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void lockedOutUser_foundByName_letBackInByAnOperator_andTheAuditNamesTheOperator(CapturedOutput output)
            throws Exception {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(MvcSecurityTest.SecuredMvcApp.class)
                .run(Secured.args("--sluice.reset-enabled=true",
                        "--management.endpoints.web.exposure.include=ratelimits"))) {
            int port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
            for (int i = 0; i < 3; i++) {
                assertThat(send(port, "GET", "/api/me", "alice").statusCode()).isEqualTo(200);
            }
            assertThat(send(port, "GET", "/api/me", "alice").statusCode()).isEqualTo(429);

            String key = "/actuator/ratelimits/per-client/principal:alice";
            HttpResponse<String> read = send(port, "GET", key, "admin");
            assertThat(read.statusCode()).isEqualTo(200);
            assertThat((Integer) JsonPath.read(read.body(), "$.remaining")).isZero();
            String partition = JsonPath.read(read.body(), "$.partition");

            HttpResponse<String> reset = send(port, "DELETE", key, "admin");
            assertThat(reset.statusCode()).isEqualTo(200);
            assertThat(output).contains("reset by admin: policy 'per-client', key hash " + partition);
            assertThat(send(port, "GET", "/api/me", "alice").statusCode()).isEqualTo(200);
            assertThat(send(port, "GET", "/api/me", "bob").statusCode()).as("another user's budget untouched")
                    .isEqualTo(200);
        }
    }
}
