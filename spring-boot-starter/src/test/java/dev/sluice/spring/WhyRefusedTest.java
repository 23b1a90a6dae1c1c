package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.sluice.http.HttpRateLimiter;
import dev.sluice.spring.reactiveapp.ReactiveApp;
import dev.sluice.spring.servletapp.ServletApp;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Why a request was refused, on a real Spring MVC server and a real WebFlux one (in-process store): the debug line
 * that {@code logging.level.dev.sluice.http.refusals=debug} switches on, written by Boot's Logback; the
 * {@code refused-by} member of the 429 problem body that {@code sluice.problem.decisions} adds, from the filter and
 * from a {@link RateLimited} method; and {@code /actuator/ratelimitrefusals}, bounded by
 * {@code sluice.trace.refused-requests}.
 */
@ExtendWith(OutputCaptureExtension.class)
class WhyRefusedTest {
    private static final String[] ARGS = {"--server.port=0",
        "--spring.autoconfigure.exclude=org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
        "--sluice.policies.per-client.permit-limit=2", "--sluice.problem.decisions=true",
        "--sluice.trace.refused-requests=2", "--logging.level.dev.sluice.http.refusals=debug",
        "--management.endpoints.web.exposure.include=ratelimits,ratelimitrefusals"};
    private static ConfigurableApplicationContext servlet;
    private static ConfigurableApplicationContext reactive;

    @BeforeAll
    static void start() {
        servlet = new SpringApplicationBuilder(ServletApp.class).run(ARGS);
        reactive = new SpringApplicationBuilder(ReactiveApp.class).run(append(ARGS,
                "--spring.main.web-application-type=reactive"));
    }

    @AfterAll
    static void stop() {
        if (servlet != null) {
            servlet.close();
        }
        if (reactive != null) {
            reactive.close();
        }
    }

    private static String[] append(String[] args, String more) {
        String[] all = java.util.Arrays.copyOf(args, args.length + 1);
        all[args.length] = more;
        return all;
    }

    private static ConfigurableApplicationContext app(String stack) {
        return stack.equals("servlet") ? servlet : reactive;
    }

    private static int port(ConfigurableApplicationContext app) {
        return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    private static String key(ConfigurableApplicationContext app, String identity) {
        return app.getBean(HttpRateLimiter.class).partition(identity);
    }

    @ParameterizedTest
    @ValueSource(strings = {"servlet", "reactive"})
    void filterRefusal_debugLine_problemMembers_traceEntry(String stack, CapturedOutput output) throws Exception {
        ConfigurableApplicationContext app = app(stack);
        int port = port(app);
        String path = "/api/hello?user=alice";
        Http.get(port, path);
        Http.get(port, path);
        HttpResponse<String> refused = Http.get(port, path);
        assertThat(refused.statusCode()).isEqualTo(429);

        String key = key(app, "ip:127.0.0.1");
        Matcher line = Pattern.compile("refused policy=per-client mode=enforced key=" + key + " remaining=0 limit=2"
                + " reset=(\\d+)\\.\\d{3}s retry-after=(\\d+)\\.\\d{3}s method=GET path=/api/hello routes=/api/\\*")
                .matcher(output.getAll());
        assertThat(line.find()).as(output.getAll()).isTrue();
        assertThat(Integer.parseInt(line.group(2))).isBetween(0, 60);
        assertThat(line.find()).as("one line for one refusal").isFalse();
        assertThat(output.getAll()).doesNotContain("127.0.0.1 ").contains("DEBUG");

        String body = refused.body();
        List<String> violated = JsonPath.read(body, "$.violated-policies");
        assertThat(violated).containsExactly("per-client");
        List<Map<String, Object>> refusedBy = JsonPath.read(body, "$.refused-by");
        assertThat(refusedBy).hasSize(1);
        assertThat(refusedBy.get(0)).containsEntry("policy", "per-client").containsEntry("key", key)
                .containsEntry("remaining", 0).containsEntry("limit", 2)
                .containsEntry("retry-after", Integer.parseInt(refused.headers().firstValue("Retry-After").orElseThrow()));
        assertThat((Integer) refusedBy.get(0).get("reset")).isBetween(1, 60);
        assertThat(body).doesNotContain("127.0.0.1");

        String trace = Http.get(port, "/actuator/ratelimitrefusals").body();
        assertThat((Integer) JsonPath.read(trace, "$.kept")).isEqualTo(2);
        assertThat((String) JsonPath.read(trace, "$.refusals[0].method")).isEqualTo("GET");
        assertThat((String) JsonPath.read(trace, "$.refusals[0].path")).isEqualTo("/api/hello");
        List<String> routes = JsonPath.read(trace, "$.refusals[0].routes");
        assertThat(routes).containsExactly("/api/*");
        assertThat((Boolean) JsonPath.read(trace, "$.refusals[0].refused")).isTrue();
        List<Map<String, Object>> policies = JsonPath.read(trace, "$.refusals[0].policies");
        assertThat(policies).extracting(p -> p.get("policy")).containsExactly("per-client", "everyone");
        assertThat(policies).extracting(p -> p.get("outcome")).containsExactly("refused", "skipped");
        assertThat(policies.get(0)).containsEntry("mode", "enforced").containsEntry("key", key)
                .containsEntry("permits", 1).containsEntry("remaining", 0).containsEntry("limit", 2);
        assertThat((String) policies.get(0).get("retryAfter")).startsWith("PT");
        assertThat(policies.get(1)).containsEntry("key", key(app, "global")).containsEntry("permits", 0)
                .containsEntry("limit", 1000).containsEntry("retryAfter", null);
        assertThat(trace).doesNotContain("127.0.0.1").doesNotContain("alice");

        for (int i = 0; i < 5; i++) {
            assertThat(Http.get(port, "/api/hello?more=" + i).statusCode()).isEqualTo(429);
        }
        String flooded = Http.get(port, "/actuator/ratelimitrefusals").body();
        assertThat((List<?>) JsonPath.read(flooded, "$.refusals")).as("bounded by the setting").hasSize(2);
    }

    /** A {@link RateLimited} method's 429 carries the same member, and its refusal is logged the same way. */
    @ParameterizedTest
    @ValueSource(strings = {"servlet", "reactive"})
    void methodRefusal_problemMembers_debugLine(String stack, CapturedOutput output) throws Exception {
        ConfigurableApplicationContext app = app(stack);
        String path = stack.equals("servlet") ? "/reports" : "/quota";
        HttpResponse<String> last = null;
        for (int i = 0; i < 4; i++) {
            last = Http.get(port(app), path, "X-Test-User", "dora-" + stack);
        }
        assertThat(last.statusCode()).isEqualTo(429);
        List<Map<String, Object>> refusedBy = JsonPath.read(last.body(), "$.refused-by");
        assertThat(refusedBy).hasSize(1);
        assertThat(refusedBy.get(0)).containsEntry("policy", "reports")
                .containsEntry("key", key(app, "principal:dora-" + stack)).containsEntry("remaining", 0)
                .containsEntry("limit", 3);
        assertThat(last.body()).doesNotContain("dora");
        assertThat(output.getAll()).containsPattern("refused policy=reports mode=enforced key="
                + key(app, "principal:dora-" + stack) + " remaining=0 limit=3 reset=\\d+\\.\\d{3}s"
                + " retry-after=\\d+\\.\\d{3}s method=- path=- routes=-");
    }

    /** Where the starter's advice is not in play, Spring answers the exception's own ProblemDetail. */
    @Test
    void methodRefusal_asErrorResponse_problemDetailCarriesTheMember() {
        ReactiveApp.Quota quota = reactive.getBean(ReactiveApp.Quota.class);
        for (int i = 0; i < 3; i++) {
            quota.take(() -> "erin").block();
        }
        Throwable refused = org.assertj.core.api.Assertions.catchThrowable(() -> quota.take(() -> "erin").block());
        org.springframework.web.ErrorResponse response = (org.springframework.web.ErrorResponse) refused;
        assertThat(response.getBody().getProperties()).containsKey("refused-by");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> refusedBy = (List<Map<String, Object>>) response.getBody().getProperties()
                .get("refused-by");
        assertThat(refusedBy.get(0)).containsEntry("policy", "reports")
                .containsEntry("key", key(reactive, "principal:erin")).containsEntry("remaining", 0L)
                .containsEntry("limit", 3L);
    }
}
