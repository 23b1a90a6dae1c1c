package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spring.reactiveapp.ReactiveApp;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two WebFlux applications (Netty) with the same {@code application.yml} as the servlet ones and Boot's
 * Hazelcast members (on ports the system reports free, which {@code reactive-hazelcast.yaml} reads from system
 * properties) share one budget, and answer with the servlet filter's headers and body.
 */
class ReactiveClusterTest {
    private static ConfigurableApplicationContext first;
    private static ConfigurableApplicationContext second;

    @BeforeAll
    static void start() {
        int[] ports = FreePorts.take(2);
        System.setProperty("sluice.test.reactive.first", Integer.toString(ports[0]));
        System.setProperty("sluice.test.reactive.second", Integer.toString(ports[1]));
        // One YAML file for both members: each reads its own port when its application starts.
        System.setProperty("sluice.test.reactive.port", Integer.toString(ports[0]));
        first = start(ReactiveApp.class);
        System.setProperty("sluice.test.reactive.port", Integer.toString(ports[1]));
        second = start(ReactiveApp.class);
    }

    static ConfigurableApplicationContext start(Class<?> app) {
        return new SpringApplicationBuilder(app).run("--server.port=0", "--spring.main.web-application-type=reactive",
                "--spring.hazelcast.config=classpath:reactive-hazelcast.yaml");
    }

    @AfterAll
    static void stop() {
        second.close();
        first.close();
    }

    private static int port(ConfigurableApplicationContext context) {
        return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
    }

    @Test
    void webFilterIsRegistered_notTheServletOne() {
        assertThat(first.getBeansOfType(SluiceWebFilter.class)).hasSize(1);
        assertThat(first.getBeanNamesForType(org.springframework.boot.web.servlet.FilterRegistrationBean.class)).isEmpty();
    }

    @Test
    void burstSplitAcrossBothInstances_exactlyTheLimitIsGranted_withTheServletFiltersAnswers() throws Exception {
        assertThat(Http.get(port(first), "/open").headers().firstValue("RateLimit-Policy")).isEmpty();

        List<HttpResponse<String>> responses = Http.burst(30, "/api/hello", port(first), port(second));

        assertThat(Http.count(responses, 200)).isEqualTo(20);
        assertThat(Http.count(responses, 429)).isEqualTo(10);
        HttpResponse<String> granted = responses.stream().filter(r -> r.statusCode() == 200).findFirst().orElseThrow();
        assertThat(granted.body()).isEqualTo("hello");
        assertThat(granted.headers().firstValue("RateLimit-Policy")).hasValue(
                "\"per-client\";q=20;w=60, \"everyone\";q=1000;w=10");
        assertThat(granted.headers().firstValue("RateLimit").orElseThrow()).matches("\"per-client\";r=\\d+, \"everyone\";r=\\d+;t=1");
        HttpResponse<String> refused = responses.stream().filter(r -> r.statusCode() == 429).findFirst().orElseThrow();
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json;charset=UTF-8");
        assertThat(refused.headers().firstValue("Cache-Control")).hasValue("no-store");
        String retryAfter = refused.headers().firstValue("Retry-After").orElseThrow();
        assertThat(Long.parseLong(retryAfter)).isBetween(1L, 60L);
        assertThat(refused.body()).isEqualTo("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"The rate limit of policy 'per-client' is"
                + " exhausted; retry after " + retryAfter + (retryAfter.equals("1") ? " second." : " seconds.")
                + "\",\"violated-policies\":[\"per-client\"]}");

        HttpResponse<String> endpoint = Http.get(port(first), "/actuator/ratelimits");
        assertThat(endpoint.body()).contains("\"backend\":\"hazelcast-member\"");
        assertThat(first.getBean(com.hazelcast.core.HazelcastInstance.class).getConfig().getClusterName())
                .isEqualTo("sluice-spring-reactive");
    }
}
