package dev.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.http.PolicyStatistics;
import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.RateLimitPolicy;
import dev.sluice.http.Route;
import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Shadow mode on a real Jetty: decided and counted, never refused; the headers the client would see;
 * would-be refusals counted apart, in the filter's statistics and to the policy's listeners.
 */
final class ShadowTest {
    private final ManualClock clock = new ManualClock();
    private final RateLimiters limiters = LocalRateLimiters.create(clock);
    private final List<String> heard = new CopyOnWriteArrayList<>();
    private final DecisionListener listener = (limiter, result, nanos) -> heard.add(limiter + "=" + result);
    private RateLimitFilter filter;
    private JettyHarness server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        limiters.close();
    }

    private void serve(HttpRateLimiterConfig config) throws Exception {
        filter = new RateLimitFilter(limiters, config);
        server = JettyHarness.start(filter);
    }

    private RateLimitPolicy listened(String name, LimitSpec spec) {
        return new RateLimitPolicy(name, spec, RateLimitPolicy.EDGE_DEFAULTS.toBuilder().listener(listener).build());
    }

    private static String header(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    @Test
    void shadowPolicy_overLimit_servedWithTheHeadersTheClientWouldSee_countedApart() throws Exception {
        serve(HttpRateLimiterConfig.builder()
                .policy(listened("new-limit", LimitSpec.fixedWindow(1, Duration.ofMinutes(1))).withShadow(true))
                .route("/*", "new-limit").build());

        HttpResponse<String> first = server.get("/x");
        HttpResponse<String> over = server.get("/x");

        assertEquals(200, first.statusCode());
        assertEquals(200, over.statusCode());
        assertEquals("ok", over.body());
        assertEquals("\"new-limit\";q=1;w=60", header(over, "RateLimit-Policy"));
        assertEquals("\"new-limit\";r=0;t=60", header(over, "RateLimit"));
        assertNull(header(over, "Retry-After"));
        assertEquals(new PolicyStatistics(1, 0, 1, 0, 0, 0), filter.statistics().get("new-limit"));
        assertEquals(List.of("new-limit=GRANTED", "new-limit=SHADOW_REFUSED"), heard);
    }

    @Test
    void shadowPolicy_doesNotChangeWhatTheEnforcedOnesDecide() throws Exception {
        serve(HttpRateLimiterConfig.builder()
                .policy(listened("trial", LimitSpec.fixedWindow(1, Duration.ofMinutes(1))).withShadow(true))
                .policy(listened("enforced", LimitSpec.fixedWindow(3, Duration.ofMinutes(1))))
                .route(Route.of("/x", "trial", "enforced")).build());

        for (int i = 0; i < 3; i++) {
            assertEquals(200, server.get("/x").statusCode(), "request " + i);
        }
        HttpResponse<String> refused = server.get("/x");
        assertEquals(429, refused.statusCode());
        assertTrue(refused.body().contains("\"violated-policies\":[\"enforced\"]"), refused.body());
        assertEquals("60", header(refused, "Retry-After"));
        assertEquals(new PolicyStatistics(1, 0, 3, 0, 0, 0), filter.statistics().get("trial"));
        assertEquals(new PolicyStatistics(3, 1, 0, 0, 0, 0), filter.statistics().get("enforced"));
        assertEquals(List.of("trial=GRANTED", "enforced=GRANTED", "trial=SHADOW_REFUSED", "enforced=GRANTED",
                "trial=SHADOW_REFUSED", "enforced=GRANTED", "trial=SHADOW_REFUSED", "enforced=REFUSED"), heard);
    }

    @Test
    void wholeFilterShadow_neverRefuses_everyRefusalCountedApart() throws Exception {
        serve(HttpRateLimiterConfig.builder().shadow(true)
                .policy(listened("a", LimitSpec.fixedWindow(1, Duration.ofMinutes(1))))
                .policy(listened("b", LimitSpec.slidingLog(2, Duration.ofMinutes(1))))
                .route(Route.of("/x", "a", "b")).build());

        for (int i = 0; i < 4; i++) {
            HttpResponse<String> r = server.get("/x");
            assertEquals(200, r.statusCode(), "request " + i);
            assertNull(header(r, "Retry-After"));
        }
        assertEquals(new PolicyStatistics(1, 0, 3, 0, 0, 0), filter.statistics().get("a"));
        assertEquals(new PolicyStatistics(2, 0, 2, 0, 0, 0), filter.statistics().get("b"));
        assertTrue(heard.stream().noneMatch(h -> h.endsWith("=REFUSED")), heard.toString());
    }

    @Test
    void shadow_fromProperties_perPolicyAndForTheFilter() throws Exception {
        server = JettyHarness.start(Map.of(
                "sluice.policies.p.algorithm", "fixed-window",
                "sluice.policies.p.permit-limit", "1",
                "sluice.policies.p.window", "PT1M",
                "sluice.policies.p.shadow", "true",
                "sluice.routes.1.pattern", "/*",
                "sluice.routes.1.policy", "p"),
                Map.of(RateLimitFilter.RATE_LIMITERS_ATTRIBUTE, limiters));
        assertEquals(200, server.get("/x").statusCode());
        assertEquals(200, server.get("/x").statusCode());
        assertTrue(HttpRateLimiterConfig.fromProperties(props("sluice.shadow", "true")).shadow());
        assertTrue(HttpRateLimiterConfig.fromProperties(props("sluice.policies.p.algorithm", "concurrency",
                "sluice.policies.p.permit-limit", "1", "sluice.policies.p.shadow", "TRUE")).policies().get("p").shadow());
    }

    private static java.util.Properties props(String... keysAndValues) {
        java.util.Properties p = new java.util.Properties();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            p.setProperty(keysAndValues[i], keysAndValues[i + 1]);
        }
        return p;
    }
}
