package dev.sluice.it.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.it.hazelcast.TestCluster;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.micrometer.SluiceMetrics;
import dev.sluice.http.ClientIdentityResolver;
import dev.sluice.http.PolicyStatistics;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.RateLimitPolicy;
import dev.sluice.http.Route;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two filter instances, each in its own Jetty in front of its own embedded Hazelcast member (127.0.0.1, free
 * ports), on one cluster: a client has one budget whichever instance it reaches, for every
 * policy of a request, and shadow refusals reach Micrometer as {@code result=shadow_refused} on the
 * instance that let them through. Each test uses its own policy names, so the tests share no key.
 *
 * <p>The policies fail closed ({@code THROW}, 10 s decision timeout): a slow first decision on a busy
 * machine then shows as a 503, never as a silent fail-open 200 that would blur the counts.
 */
final class ServletFilterClusterTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final LimiterOptions CLOSED = LimiterOptions.builder().failureMode(FailureMode.THROW)
            .decisionTimeout(Duration.ofSeconds(10)).build();

    private static TestCluster cluster;
    private static final List<Instance> instances = new ArrayList<>();

    /** One app instance: its member's limiters, a filter, a Jetty. */
    private record Instance(RateLimiters limiters, RateLimitFilter filter, SimpleMeterRegistry registry, Server server,
            URI base) {}

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start("servlet-filter-" + UUID.randomUUID(), 2, null);
        for (int i = 0; i < 2; i++) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            LimiterOptions metered = CLOSED.toBuilder().listener(new SluiceMetrics(registry)).build();
            RateLimiters limiters = HazelcastRateLimiters.create(cluster.members.get(i));
            HttpRateLimiterConfig config = HttpRateLimiterConfig.builder()
                    .policy(new RateLimitPolicy("login", LimitSpec.slidingLog(5, Duration.ofMinutes(1)), CLOSED))
                    .route(Route.of("/api/login", "login").withMethods("POST"))
                    .policy(new RateLimitPolicy("per-client", LimitSpec.slidingLog(4, Duration.ofMinutes(1)), CLOSED))
                    .policy(new RateLimitPolicy("everyone", LimitSpec.slidingLog(6, Duration.ofMinutes(1)), CLOSED)
                            .withIdentity(ClientIdentityResolver.global()))
                    .route(Route.of("/api/items", "per-client", "everyone"))
                    .policy(new RateLimitPolicy("trial", LimitSpec.slidingLog(2, Duration.ofMinutes(1)), metered)
                            .withShadow(true))
                    .route(Route.of("/api/trial", "trial"))
                    .trustedProxies("127.0.0.1")
                    .build();
            RateLimitFilter filter = new RateLimitFilter(limiters, config);
            Server server = new Server();
            ServerConnector connector = new ServerConnector(server, 1, 1);
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler();
            context.addServlet(new ServletHolder(new HttpServlet() {
                @Override
                protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
                    response.setStatus(200);
                    response.getWriter().write("ok");
                }
            }), "/*");
            context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
            server.setHandler(context);
            server.start();
            instances.add(new Instance(limiters, filter, registry, server,
                    URI.create("http://127.0.0.1:" + connector.getLocalPort())));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        for (Instance i : instances) {
            i.server().stop();
            i.filter().destroy();
            i.limiters().close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static HttpResponse<String> send(int instance, String method, String path, String client) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(instances.get(instance).base().resolve(path))
                .timeout(Duration.ofSeconds(20)).header("X-Forwarded-For", client)
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String header(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    @Test
    void oneClient_alternatingInstances_oneBudget_noSpellingEscapesIt() throws Exception {
        List<String> seen = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            HttpResponse<String> r = send(i % 2, "POST", "/api/login", "203.0.113.10");
            seen.add(r.statusCode() + " " + header(r, r.statusCode() == 200 ? "RateLimit" : "Retry-After"));
        }
        assertEquals("200 \"login\";r=4", seen.get(0), seen.toString());
        assertEquals("200 \"login\";r=0", seen.get(4), seen.toString());
        assertEquals(List.of(200, 200, 200, 200, 200, 429, 429), seen.stream().map(s -> Integer.parseInt(s.substring(0, 3)))
                .toList(), seen.toString());
        assertEquals(429, send(1, "POST", "/api/login/", "203.0.113.10").statusCode());
        assertEquals(429, send(0, "POST", "/API/Login%20", "203.0.113.10").statusCode());
        assertEquals(200, send(1, "POST", "/api/login", "203.0.113.11").statusCode()); // another client
    }

    @Test
    void severalPolicies_perClientAndEveryone_sharedByBothInstances() throws Exception {
        List<Integer> alice = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            alice.add(send(i % 2, "GET", "/api/items", "198.51.100.1").statusCode());
        }
        assertEquals(List.of(200, 200, 200, 200, 429), alice); // her own 4; the 5th takes nothing from everyone

        HttpResponse<String> bob = send(1, "GET", "/api/items", "198.51.100.2");
        assertEquals(200, bob.statusCode());
        assertEquals("\"per-client\";r=3, \"everyone\";r=1", header(bob, "RateLimit"));
        assertEquals(200, send(0, "GET", "/api/items", "198.51.100.3").statusCode());
        HttpResponse<String> carol = send(1, "GET", "/api/items", "198.51.100.4");
        assertEquals(429, carol.statusCode());
        assertTrue(carol.body().contains("\"violated-policies\":[\"everyone\"]"), carol.body());
    }

    @Test
    void shadowPolicy_neverRefuses_wouldBeRefusalsReachMicrometerApart() throws Exception {
        for (int i = 0; i < 6; i++) {
            HttpResponse<String> r = send(i % 2, "GET", "/api/trial", "192.0.2.1");
            assertEquals(200, r.statusCode(), "request " + i);
        }
        long granted = 0;
        long shadowRefused = 0;
        long refused = 0;
        for (Instance i : instances) {
            granted += count(i, "granted");
            shadowRefused += count(i, "shadow_refused");
            refused += count(i, "refused");
            PolicyStatistics s = i.filter().statistics().get("trial");
            assertEquals(3, s.granted() + s.shadowRefused(), s.toString());
        }
        assertEquals(2, granted);
        assertEquals(4, shadowRefused);
        assertEquals(0, refused);
    }

    private static long count(Instance instance, String result) {
        Timer timer = instance.registry().find("sluice.decisions").tag("limiter", "trial").tag("result", result).timer();
        return timer == null ? 0 : timer.count();
    }
}
