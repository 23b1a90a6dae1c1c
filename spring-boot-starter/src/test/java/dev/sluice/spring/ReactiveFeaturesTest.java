package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.sluice.spring.reactiveapp.ReactiveApp;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The WebFlux filter's shadow mode and concurrency leases, as the servlet filter's (in-process store, so
 * no cluster is needed for what happens inside one instance).
 */
class ReactiveFeaturesTest {
    private static ConfigurableApplicationContext app;

    @BeforeAll
    static void start() {
        app = new SpringApplicationBuilder(ReactiveApp.class).run("--server.port=0",
                "--spring.main.web-application-type=reactive",
                "--spring.autoconfigure.exclude=org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
                "--sluice.policies.watch.algorithm=sliding-log", "--sluice.policies.watch.permit-limit=2",
                "--sluice.policies.watch.window=PT1H", "--sluice.policies.watch.shadow=true",
                "--sluice.policies.one-at-a-time.algorithm=concurrency", "--sluice.policies.one-at-a-time.permit-limit=1",
                "--sluice.routes.watch.pattern=/watch/*", "--sluice.routes.watch.policy=watch",
                "--sluice.routes.slow.pattern=/slow", "--sluice.routes.slow.policy=one-at-a-time",
                "--sluice.policies.one-queued.algorithm=concurrency", "--sluice.policies.one-queued.permit-limit=1",
                "--sluice.policies.one-queued.queue-limit=1",
                "--sluice.routes.queued.pattern=/queued", "--sluice.routes.queued.policy=one-queued");
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    private static int port() {
        return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    @Test
    void shadowPolicy_refusesNothing_butCountsAndShowsWhatItWouldHaveRefused() throws Exception {
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = Http.get(port(), "/watch/it");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"watch\";r=" + Math.max(0, 1 - i));
        }
        String endpoint = Http.get(port(), "/actuator/ratelimits/watch").body();
        assertThat((Integer) JsonPath.read(endpoint, "$.requests.granted")).isEqualTo(2);
        assertThat((Integer) JsonPath.read(endpoint, "$.requests.shadowRefused")).isEqualTo(3);
        assertThat((Boolean) JsonPath.read(endpoint, "$.shadow")).isTrue();
    }

    @Test
    void concurrencyLease_isHeldUntilTheResponseCompletes_thenReleased() throws Exception {
        List<HttpResponse<String>> both = Http.burst(2, "/slow", port());
        assertThat(both).extracting(HttpResponse::statusCode).containsExactlyInAnyOrder(200, 429);
        HttpResponse<String> refused = both.stream().filter(r -> r.statusCode() == 429).findFirst().orElseThrow();
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue(
                "\"one-at-a-time\";q=1;qu=\"concurrent-requests\"");

        HttpResponse<String> after = Http.get(port(), "/slow"); // the first response completed: its lease is back
        assertThat(after.statusCode()).isEqualTo(200);
        assertThat(after.body()).isEqualTo("slow");
    }

    @Test
    void queueLimit_secondRequestWaitsForTheFirstsLease_insteadOfBeingRefused() {
        List<HttpResponse<String>> both = Http.burst(2, "/queued", port());
        assertThat(both).extracting(HttpResponse::statusCode).containsExactly(200, 200);
        assertThat(both).extracting(HttpResponse::body).containsExactly("slow", "slow");
    }

    @Test
    void rateLimitedMonoMethod_decidedAsynchronously_refusalAnswered429() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(Http.get(port(), "/quota", "X-Test-User", "ann").body()).isEqualTo("quota for ann");
        }
        HttpResponse<String> refused = Http.get(port(), "/quota", "X-Test-User", "ann");
        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json;charset=UTF-8");
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"reports\";q=3;w=3600");
        assertThat(refused.body()).contains("\"violated-policies\":[\"reports\"]");
        assertThat(Http.get(port(), "/quota", "X-Test-User", "bob").statusCode()).isEqualTo(200);
    }

    /**
     * A keep-alive request that arrives while the previous one still runs is held back by Reactor Netty and
     * dispatched when that one ends; a refusal answered within that dispatch left the connection unread on the
     * Reactor Netty releases before 1.3.8 (reactor-netty#4361), so the client's next request on it waited forever.
     * With the in-process store the refusal is decided at once, inside that very call.
     */
    @Test
    void rateLimitedMonoMethod_aRefusalHeldBehindASlowRequest_leavesTheConnectionRead() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(Http.get(port(), "/exports/" + i).statusCode()).isEqualTo(200);
        }
        try (KeepAliveConnection connection = new KeepAliveConnection(port())) {
            connection.send("GET /pause", "GET /exports/late");
            assertThat(connection.status()).isEqualTo(200);
            assertThat(connection.status()).isEqualTo(429);
            connection.send("GET /exports/again");
            assertThat(connection.status()).isEqualTo(429);
        }
    }

    @Test
    void rateLimitedMonoMethod_takesPermitsOnlyWhenSubscribed() {
        ReactiveApp.Quota quota = app.getBean(ReactiveApp.Quota.class);
        for (int i = 0; i < 5; i++) {
            quota.take(() -> "carl"); // assembled, never subscribed: asks the store nothing
        }
        for (int i = 0; i < 3; i++) {
            assertThat(quota.take(() -> "carl").block()).isEqualTo("quota for carl");
        }
        Throwable refused = org.assertj.core.api.Assertions.catchThrowable(() -> quota.take(() -> "carl").block());
        assertThat(refused).isInstanceOf(RateLimitExceededException.class)
                .isInstanceOf(org.springframework.web.ErrorResponse.class); // spring-web is here
        org.springframework.web.ErrorResponse response = (org.springframework.web.ErrorResponse) refused;
        assertThat(response.getStatusCode().value()).isEqualTo(429);
        assertThat(response.getHeaders().getFirst("Retry-After")).isNotNull();
        assertThat(response.getBody().getProperties()).containsEntry("violated-policies", java.util.List.of("reports"));
    }
}
