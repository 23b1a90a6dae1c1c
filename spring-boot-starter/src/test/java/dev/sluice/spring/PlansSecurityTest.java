package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A limit per plan behind Spring Security, bearer tokens of a JWT resource server: the plan read from a token's claim
 * or from a granted authority gives its user that plan's limit, on Spring MVC and on WebFlux; a client that sends
 * {@code X-Plan: pro} itself gets the free limit, and the same header is honoured when a configured trusted proxy
 * sends it. Run in the {@code spring-security} execution.
 */
@EnabledIf("dev.sluice.spring.MvcSecurityTest#securityPresent")
final class PlansSecurityTest {
    private static ConfigurableApplicationContext mvc;
    private static ConfigurableApplicationContext webflux;

    @BeforeAll
    static void start() {
        mvc = new SpringApplicationBuilder(PlansMvcApp.class).run(args());
        webflux = new SpringApplicationBuilder(PlansReactiveApp.class).web(WebApplicationType.REACTIVE)
                .run(args("--sluice.client.trusted-proxies=127.0.0.1"));
    }

    @AfterAll
    static void stop() {
        for (ConfigurableApplicationContext app : new ConfigurableApplicationContext[] {mvc, webflux}) {
            if (app != null) {
                app.close();
            }
        }
    }

    /** Three policies of free (2 an hour) and pro (5 an hour), each reading the plan elsewhere, keyed on the user. */
    static String[] args(String... more) {
        List<String> all = new ArrayList<>(List.of("--server.port=0",
                "--spring.autoconfigure.exclude=org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
                "--spring.security.oauth2.resourceserver.jwt.public-key-location=" + Secured.PUBLIC_KEY.toUri()));
        for (String[] policy : new String[][] {{"api", "claim:plan", "/api/*"}, {"partner", "header:X-Plan", "/partner/*"},
                {"ranked", "authority:SCOPE_plan_", "/ranked/*"}}) {
            String p = "--sluice.policies." + policy[0] + ".";
            all.addAll(List.of(p + "algorithm=fixed-window", p + "window=PT1H", p + "identity=principal",
                    p + "plan-from=" + policy[1], p + "default-plan=free", p + "plans.free.permit-limit=2",
                    p + "plans.pro.permit-limit=5", "--sluice.routes." + policy[0] + ".pattern=" + policy[2],
                    "--sluice.routes." + policy[0] + ".policy=" + policy[0]));
        }
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private static int port(ConfigurableApplicationContext app) {
        return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    private static HttpResponse<String> get(ConfigurableApplicationContext app, String path, String token,
            String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(app) + path))
                .timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + token);
        if (headers.length > 0) {
            b.headers(headers);
        }
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build().send(b.build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The statuses of {@code n} requests. */
    private static List<Integer> statuses(ConfigurableApplicationContext app, int n, String path, String token,
            String... headers) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            statuses.add(get(app, path, token, headers).statusCode());
        }
        return statuses;
    }

    private static List<Integer> expected(int granted, int n) {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            statuses.add(i < granted ? 200 : 429);
        }
        return statuses;
    }

    @Test
    void mvc_principalWithPlanClaimPro_getsTheProLimit_andTheHeadersNameIt() throws Exception {
        String pro = Secured.token("carol", Map.of("plan", "pro"));
        HttpResponse<String> first = get(mvc, "/api/me", pro);
        assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue("\"api\";q=5;w=3600;plan=\"pro\"");
        assertThat(statuses(mvc, 5, "/api/me", pro)).isEqualTo(expected(4, 5));
        HttpResponse<String> refused = get(mvc, "/api/me", pro);
        assertThat(refused.body()).contains("\"plans\":[{\"policy\":\"api\",\"plan\":\"pro\",\"limit\":5");
        assertThat(statuses(mvc, 3, "/api/me", Secured.token("dave"))).isEqualTo(expected(2, 3));
    }

    @Test
    void mvc_planFromAnAuthority_getsThatPlansLimit() throws Exception {
        assertThat(statuses(mvc, 6, "/ranked/me", Secured.token("frank", Map.of("scope", "read plan_pro"))))
                .isEqualTo(expected(5, 6));
    }

    @Test
    void mvc_attackerSendingXPlanPro_withoutATrustedProxy_getsTheFreeLimit() throws Exception {
        assertThat(statuses(mvc, 4, "/partner/me", Secured.token("erin"), "X-Plan", "pro")).isEqualTo(expected(2, 4));
    }

    @Test
    void webflux_xPlanProThroughATrustedProxy_isHonoured() throws Exception {
        assertThat(statuses(webflux, 6, "/partner/me", Secured.token("erin"), "X-Plan", "pro"))
                .isEqualTo(expected(5, 6));
    }

    @Test
    void webflux_principalWithPlanClaimPro_getsTheProLimit() throws Exception {
        assertThat(statuses(webflux, 6, "/api/me", Secured.token("carol", Map.of("plan", "pro"))))
                .isEqualTo(expected(5, 6));
        assertThat(statuses(webflux, 3, "/api/me", Secured.token("dave", Map.of("plan", "gold"))))
                .isEqualTo(expected(2, 3));
    }

    @Test
    void planFromAClaim_decidedAfterTheSecurityChain() {
        assertThat(mvc.getBean(ProtectionReport.class).text()).contains("api: plans {free=FixedWindow[permitLimit=2,"
                + " windowMillis=3600000], pro=FixedWindow[permitLimit=5, windowMillis=3600000]} from claim:plan"
                + " (unknown plan: free), identity principal, after Spring Security");
        assertThatThrownBy(() -> new SpringApplicationBuilder(PlansMvcApp.class).run(args("--sluice.filter.order=-200")))
                .hasStackTraceContaining("policy 'api' (plans from sluice.policies.api.plan-from) runs before Spring"
                        + " Security's filter chain");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PlansMvcApp {
        @Bean
        SecurityFilterChain chain(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
                    .oauth2ResourceServer(o -> o.jwt(Customizer.withDefaults()))
                    .csrf(c -> c.disable())
                    .build();
        }

        @Bean
        MvcController controller() {
            return new MvcController();
        }
    }

    @RestController
    static class MvcController {
        @GetMapping({"/api/me", "/partner/me", "/ranked/me"})
        String me(Principal user) {
            return user.getName();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PlansReactiveApp {
        @Bean
        SecurityWebFilterChain chain(ServerHttpSecurity http) {
            return http.authorizeExchange(a -> a.anyExchange().authenticated())
                    .oauth2ResourceServer(o -> o.jwt(Customizer.withDefaults()))
                    .csrf(c -> c.disable())
                    .build();
        }

        @Bean
        ReactiveController controller() {
            return new ReactiveController();
        }
    }

    @RestController
    static class ReactiveController {
        @GetMapping({"/api/me", "/partner/me", "/ranked/me"})
        Mono<String> me(Mono<Principal> user) {
            return user.map(Principal::getName);
        }
    }
}
