package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.sluice.gateway.app.GatewayApp;
import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.RefusedRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Why the gateway refused a request, for both of its forms (a real gateway, in-process store, a real backend): the
 * debug line of {@code dev.sluice.http.refusals}, the trace the Actuator's {@code ratelimitrefusals} shows, and, for
 * the {@code Sluice} filter, which writes the problem body, {@code refused-by}.
 */
@ExtendWith(OutputCaptureExtension.class)
final class GatewayWhyRefusedTest {
    private static Backend backend;
    private static ConfigurableApplicationContext gateway;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        backend = Backend.ok();
        port = GatewayFormsTest.freePort();
        List<String> args = new ArrayList<>(GatewayFormsTest.policies("filtered=2", "limited=2"));
        args.addAll(List.of("--server.port=" + port, "--spring.main.web-application-type=reactive",
                "--sluice.problem.decisions=true", "--logging.level.dev.sluice.http.refusals=debug"));
        args.addAll(backend.route(0, "filtered", "/f/**", "[0]=Sluice=filtered"));
        args.addAll(backend.route(1, "limited", "/r/**", "[0].name=RequestRateLimiter",
                "[0].args[sluice-rate-limiter.policy]=limited"));
        gateway = SpringApplication.run(GatewayApp.class, args.toArray(String[]::new));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (backend != null) {
            backend.close();
        }
    }

    private static HttpRateLimiter rateLimiter() {
        return gateway.getBean(HttpRateLimiter.class);
    }

    private static RefusedRequest latest(String policy) {
        return rateLimiter().refusals().stream().filter(r -> r.policies().get(0).policy().equals(policy)).findFirst()
                .orElseThrow();
    }

    @Test
    void sluiceFilter_debugLine_problemMembers_traceEntry(CapturedOutput output) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        GatewayFormsTest.Answer refused = null;
        for (int i = 0; i < 3; i++) {
            refused = GatewayFormsTest.send(port, "GET", "/f/x?token=secret");
            statuses.add(refused.status());
        }
        assertThat(statuses).containsExactly(200, 200, 429);

        String key = rateLimiter().partition("ip:127.0.0.1");
        assertThat(output.getAll()).containsPattern(Pattern.compile("DEBUG .*dev\\.sluice\\.http\\.refusals .*"
                + "refused policy=filtered mode=enforced key=" + key + " remaining=0 limit=2 reset=\\d+\\.\\d{3}s"
                + " retry-after=\\d+\\.\\d{3}s method=GET path=/f/x routes=filtered"));

        List<Map<String, Object>> refusedBy = JsonPath.read(refused.body(), "$.refused-by");
        assertThat(refusedBy).hasSize(1);
        assertThat(refusedBy.get(0)).containsEntry("policy", "filtered").containsEntry("key", key)
                .containsEntry("remaining", 0).containsEntry("limit", 2);

        RefusedRequest traced = latest("filtered");
        assertThat(traced.method()).isEqualTo("GET");
        assertThat(traced.path()).isEqualTo("/f/x");
        assertThat(traced.routes()).containsExactly("filtered");
        assertThat(traced.refused()).isTrue();
        assertThat(traced.policies()).extracting(RefusedRequest.PolicyOutcome::outcome).containsExactly("refused");
        assertThat(traced.policies().get(0).key()).isEqualTo(key);
        assertThat(traced.toString()).doesNotContain("127.0.0.1").doesNotContain("secret");
    }

    @Test
    void requestRateLimiter_debugLine_traceEntry(CapturedOutput output) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            statuses.add(GatewayFormsTest.send(port, "GET", "/r/x").status());
        }
        assertThat(statuses).containsExactly(200, 200, 429);

        String key = rateLimiter().partition("ip:127.0.0.1");
        assertThat(output.getAll()).containsPattern(Pattern.compile("refused policy=limited mode=enforced key=" + key
                + " remaining=0 limit=2 reset=\\d+\\.\\d{3}s retry-after=\\d+\\.\\d{3}s method=- path=- routes=limited"));

        RefusedRequest traced = latest("limited");
        assertThat(traced.method()).isNull();
        assertThat(traced.routes()).containsExactly("limited");
        assertThat(traced.refused()).isTrue();
        assertThat(traced.policies()).extracting(RefusedRequest.PolicyOutcome::outcome).containsExactly("refused");
        assertThat(traced.policies().get(0).remaining()).isZero();
        assertThat(traced.policies().get(0).limit()).isEqualTo(2);
    }
}
