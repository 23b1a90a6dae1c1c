package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.store.RateLimiterRuntime;
import dev.sluice.spring.reactiveapp.ReactiveApp;
import dev.sluice.spring.servletapp.ServletApp;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The attacks on the edge as Spring Boot deploys it, on real servers: Tomcat (MVC) and Netty (WebFlux), with
 * the in-process store. The client is 127.0.0.1, which Tomcat's {@code RemoteIpValve} takes for an internal
 * proxy as it takes every pod in 10/8: the pod calling a service directly with a header of its own. The route
 * {@code /whoami} (which answers the address the application sees) is limited to 3 per client.
 */
class EdgeAttacksBootTest {
    private static final String[] LIMITED = {"--server.port=0",
            "--spring.autoconfigure.exclude=org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
            "--sluice.policies.edge.algorithm=fixed-window", "--sluice.policies.edge.permit-limit=3",
            "--sluice.policies.edge.window=PT1H", "--sluice.routes.edge.pattern=/whoami",
            "--sluice.routes.edge.policy=edge"};

    private static String[] args(String... more) {
        List<String> all = new ArrayList<>(List.of(LIMITED));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    /** An environment whose variables say Kubernetes, as on every pod: Boot then turns on native forwarded headers. */
    private static StandardEnvironment kubernetes() {
        StandardEnvironment environment = new StandardEnvironment();
        Map<String, Object> variables = new HashMap<>(System.getenv());
        variables.put("KUBERNETES_SERVICE_HOST", "10.96.0.1");
        variables.put("KUBERNETES_SERVICE_PORT", "443");
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        variables));
        return environment;
    }

    private static ConfigurableApplicationContext mvc(StandardEnvironment environment, String... more) {
        SpringApplicationBuilder b = new SpringApplicationBuilder(ServletApp.class);
        if (environment != null) {
            b.environment(environment);
        }
        return b.run(args(more));
    }

    private static ConfigurableApplicationContext webflux(StandardEnvironment environment, String... more) {
        SpringApplicationBuilder b = new SpringApplicationBuilder(ReactiveApp.class);
        if (environment != null) {
            b.environment(environment);
        }
        List<String> all = new ArrayList<>(List.of(more));
        all.add("--spring.main.web-application-type=reactive");
        return b.run(args(all.toArray(String[]::new)));
    }

    private static int port(ConfigurableApplicationContext app) {
        return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    /** The statuses of {@code count} requests, the i-th with {@code X-Forwarded-For} {@code forwardedFor(i)}. */
    private static List<Integer> forged(ConfigurableApplicationContext app, int count,
            java.util.function.IntFunction<String> forwardedFor) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            statuses.add(Http.get(port(app), "/whoami", "X-Forwarded-For", forwardedFor.apply(i)).statusCode());
        }
        return statuses;
    }

    private static final List<Integer> LIMITED_TO_3 = List.of(200, 200, 200, 429, 429, 429, 429, 429);

    /** Bug: only the Kubernetes variables set, RemoteIpValve believed the pod's header: 6 of 6 forged got 200. */
    @Test
    void mvcOnKubernetes_podWithItsOwnHeader_refused() throws Exception {
        try (ConfigurableApplicationContext app = mvc(kubernetes())) {
            assertThat(Http.get(port(app), "/whoami", "X-Forwarded-For", "198.51.100.99").body())
                    .isEqualTo("198.51.100.99"); // Tomcat did rewrite the address the application sees (1 of 3)
            assertThat(forged(app, 7, i -> "198.51.100." + i)).isEqualTo(LIMITED_TO_3.subList(1, 8));
        }
    }

    /** Bug: with ForwardedHeaderFilter ({@code framework}), 8 of 8 forged got 200. */
    @Test
    void mvcWithForwardedHeaderFilter_forgedLeftMostEntry_refused() throws Exception {
        try (ConfigurableApplicationContext app = mvc(null, "--server.forward-headers-strategy=framework")) {
            assertThat(forged(app, 8, i -> "198.51.100." + i + ", 198.51.100.200")).isEqualTo(LIMITED_TO_3);
        }
    }

    /**
     * With Sluice's own trusted proxies on Kubernetes, the right-most untrusted entry of the header as Tomcat
     * received it, before RemoteIpValve trimmed what it consumed: forging to its left changes nothing.
     */
    @Test
    void mvcOnKubernetes_trustedProxy_realClientFromTheReceivedHeader() throws Exception {
        try (ConfigurableApplicationContext app = mvc(kubernetes(), "--sluice.client.trusted-proxies=127.0.0.1")) {
            assertThat(forged(app, 5, i -> "198.51.100." + i + ", 203.0.113.7")).containsExactly(200, 200, 200, 429, 429);
            assertThat(forged(app, 1, i -> "203.0.113.8")).containsExactly(200); // another client, its own budget
        }
    }

    @Test
    void mvcWithForwardedHeaderFilter_trustedProxy_realClientFromTheHiddenHeader() throws Exception {
        try (ConfigurableApplicationContext app = mvc(null, "--server.forward-headers-strategy=framework",
                "--sluice.client.trusted-proxies=127.0.0.1")) {
            assertThat(forged(app, 5, i -> "198.51.100." + i + ", 203.0.113.7")).containsExactly(200, 200, 200, 429, 429);
            assertThat(forged(app, 1, i -> "203.0.113.8")).containsExactly(200);
        }
    }

    /** Bug: with only the Kubernetes variables set, Reactor Netty took the forged left-most entry: 8 of 8 got 200. */
    @Test
    void webFluxOnKubernetes_forgedLeftMostEntry_refused() throws Exception {
        try (ConfigurableApplicationContext app = webflux(kubernetes())) {
            assertThat(Http.get(port(app), "/whoami", "X-Forwarded-For", "198.51.100.99").body())
                    .contains("198.51.100.99"); // Netty did rewrite the address the application sees (1 of 3)
            assertThat(forged(app, 7, i -> "198.51.100." + i)).isEqualTo(LIMITED_TO_3.subList(1, 8));
        }
    }

    @Test
    void webFluxWithForwardedHeaderTransformer_forgedLeftMostEntry_refused() throws Exception {
        try (ConfigurableApplicationContext app = webflux(null, "--server.forward-headers-strategy=framework")) {
            assertThat(forged(app, 8, i -> "198.51.100." + i)).isEqualTo(LIMITED_TO_3);
        }
    }

    /**
     * Bug: behind {@code framework}, every proxied client was {@code ip:unknown} (the transformer's unresolved
     * address), so an attacker's 3 requests spent the victim's budget: its first request got 429.
     */
    @Test
    void webFluxWithForwardedHeaderTransformer_trustedProxy_eachClientItsOwnBudget() throws Exception {
        try (ConfigurableApplicationContext app = webflux(null, "--server.forward-headers-strategy=framework",
                "--sluice.client.trusted-proxies=127.0.0.1")) {
            assertThat(forged(app, 4, i -> "198.51.100." + i + ", 203.0.113.66")).containsExactly(200, 200, 200, 429);
            assertThat(forged(app, 1, i -> "203.0.113.77")).containsExactly(200); // the victim
        }
    }

    /** Bug: {@code @RateLimited} on an interface or an overridden superclass method was validated, never enforced. */
    @Test
    void mvc_rateLimitedOnAnInterfaceAndASuperclass_enforced() throws Exception {
        try (ConfigurableApplicationContext app = mvc(null)) {
            assertThat(statuses(app, "/exports/a", 5)).containsExactly(200, 200, 200, 429, 429);
            assertThat(statuses(app, "/archive/a", 5)).containsExactly(200, 200, 200, 429, 429);
        }
    }

    @Test
    void webFlux_rateLimitedOnAnInterfaceAndASuperclass_enforced() throws Exception {
        try (ConfigurableApplicationContext app = webflux(null)) {
            assertThat(statuses(app, "/exports/a", 5)).containsExactly(200, 200, 200, 429, 429);
            assertThat(statuses(app, "/archive/a", 5)).containsExactly(200, 200, 200, 429, 429);
        }
    }

    /**
     * The encoded override on WebFlux: a POST asking for GET by {@code %5Fmethod}, {@code _m%65thod} or a form
     * field counts on the exhausted GET route, as an override filter after Sluice's would run it as a GET.
     */
    @Test
    void webFlux_encodedMethodOverride_exhaustedGetRoute_refused() throws Exception {
        try (ConfigurableApplicationContext app = webflux(null, "--sluice.routes.search.pattern=/search",
                "--sluice.routes.search.methods=GET", "--sluice.routes.search.policy=edge")) {
            for (int i = 0; i < 3; i++) {
                assertThat(Http.get(port(app), "/search").statusCode()).isNotEqualTo(429); // no handler: 404
            }
            String form = "application/x-www-form-urlencoded";
            assertThat(Http.post(port(app), "/search?%5Fmethod=GET", "text/plain", "").statusCode()).isEqualTo(429);
            assertThat(Http.post(port(app), "/search?_m%65thod=GET", "text/plain", "").statusCode()).isEqualTo(429);
            assertThat(Http.post(port(app), "/search", form, "q=1&_method=GET").statusCode()).isEqualTo(429);
            assertThat(Http.post(port(app), "/search", form, "q=1").statusCode()).isNotEqualTo(429); // a plain POST
        }
    }

    /** A store that never answers, as the application's own {@link RateLimiters}. */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    static class StoreDown {
        @org.springframework.context.annotation.Bean
        RateLimiters unreachable() {
            return RateLimiterRuntime.create(request -> new CompletableFuture<>());
        }
    }

    /** Bug: {@code failure-mode: deny} with the store down answered {@code 429 quota-exceeded}. */
    @Test
    void mvc_rateLimitedUnderDeny_storeDown_answers503TemporaryReducedCapacity() throws Exception {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ServletApp.class, StoreDown.class)
                .run(args("--sluice.policies.reports.decision-timeout=PT0.05S", "--sluice.policies.reports.max-retries=0"))) {
            HttpResponse<String> r = Http.get(port(app), "/reports", "X-Test-User", "ann");
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).startsWith("{\"type\":\"https://iana.org/assignments/http-problem-types"
                    + "#temporary-reduced-capacity\",\"title\":\"Service Unavailable\",\"status\":503,");
            assertThat(r.body()).contains("\"violated-policies\":[\"reports\"]").doesNotContain("exhausted");
            assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
        }
    }

    private static List<Integer> statuses(ConfigurableApplicationContext app, String path, int count) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            statuses.add(Http.get(port(app), path).statusCode());
        }
        return statuses;
    }
}
