package dev.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.RateLimitPolicy;
import dev.sluice.http.Route;
import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.store.DecisionStore;
import dev.sluice.limiter.store.RateLimiterRuntime;
import dev.sluice.limiter.store.Outcomes;
import dev.sluice.limiter.store.StepRequest;
import jakarta.servlet.AsyncContext;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class RateLimitFilterTest {
    private final ManualClock clock = new ManualClock();
    private final RecordingRateLimiters limiters = new RecordingRateLimiters(LocalRateLimiters.create(clock));
    private JettyHarness server;

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        limiters.close();
    }

    private JettyHarness serve(HttpRateLimiterConfig config) throws Exception {
        return serve(limiters, config);
    }

    private JettyHarness serve(RateLimiters on, HttpRateLimiterConfig config) throws Exception {
        server = JettyHarness.start(new RateLimitFilter(on, config));
        return server;
    }

    private static String header(HttpResponse<?> response, String name) {
        return response.headers().firstValue(name).orElse(null);
    }

    // ---- headers ----

    @Test
    void granted_carriesIetfRateLimitHeaders() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("login", LimitSpec.fixedWindow(10, Duration.ofMinutes(1)))
                .route("/login", "login").build());

        HttpResponse<String> first = server.get("/login");
        assertEquals(200, first.statusCode());
        assertEquals("ok", first.body());
        assertEquals("\"login\";q=10;w=60", header(first, "RateLimit-Policy"));
        assertEquals("\"login\";r=9;t=60", header(first, "RateLimit"));
        assertEquals(null, header(first, "RateLimit-Limit"));
        assertEquals(null, header(first, "RateLimit-Degraded"));

        clock.advance(Duration.ofMillis(17_500)); // 42.5 s left in the window: rounded up to 43
        HttpResponse<String> second = server.get("/login");
        assertEquals("\"login\";r=8;t=43", header(second, "RateLimit"));
    }

    @Test
    void legacyHeaders_optedIn_sendsLimitRemainingReset() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("api", LimitSpec.fixedWindow(5, Duration.ofSeconds(10)))
                .route("/api/*", "api").legacyHeaders(true).build());

        HttpResponse<String> r = server.get("/api/items");
        assertEquals("5", header(r, "RateLimit-Limit"));
        assertEquals("4", header(r, "RateLimit-Remaining"));
        assertEquals("10", header(r, "RateLimit-Reset"));
        assertEquals("\"api\";r=4;t=10", header(r, "RateLimit"));
    }

    @Test
    void tokenBucketAndConcurrency_policyHeaderWindows() throws Exception {
        serve(HttpRateLimiterConfig.builder()
                .policy("bucket", LimitSpec.tokenBucket(10, 2, Duration.ofSeconds(3)))
                .policy("slots", LimitSpec.concurrency(4))
                .route("/bucket", "bucket").route("/slots", "slots").build());

        assertEquals("\"bucket\";q=10;w=15", header(server.get("/bucket"), "RateLimit-Policy"));
        HttpResponse<String> slots = server.get("/slots");
        assertEquals("\"slots\";q=4;qu=\"concurrent-requests\"", header(slots, "RateLimit-Policy"));
        assertEquals("\"slots\";r=3", header(slots, "RateLimit")); // no window: a release can come at any time
    }

    // ---- refusals ----

    @Test
    void overLimit_answers429WithProblemBody() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("login", LimitSpec.fixedWindow(2, Duration.ofMinutes(1)))
                .route("/login", "login").build());
        server.get("/login");
        server.get("/login");

        HttpResponse<String> refused = server.get("/login");
        assertEquals(429, refused.statusCode());
        assertEquals("application/problem+json", header(refused, "Content-Type").replaceAll(";.*", ""));
        assertEquals("60", header(refused, "Retry-After"));
        assertEquals("\"login\";r=0;t=60", header(refused, "RateLimit"));
        assertEquals("\"login\";q=2;w=60", header(refused, "RateLimit-Policy"));
        assertEquals("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
                + "\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"The rate limit of policy 'login' is exhausted; retry after 60 seconds.\","
                + "\"violated-policies\":[\"login\"]}", refused.body());
    }

    @Test
    void retryAfter_roundsUpToWholeSeconds() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route("/*", "p").build());
        server.get("/x");

        clock.advance(Duration.ofMillis(30_001)); // 29.999 s to wait
        assertEquals("30", header(server.get("/x"), "Retry-After"));
        clock.advance(Duration.ofMillis(29_499)); // 0.5 s to wait
        HttpResponse<String> almost = server.get("/x");
        assertEquals("1", header(almost, "Retry-After"));
        assertTrue(almost.body().contains("retry after 1 second."), almost.body());
    }

    @Test
    void concurrencyRefusal_retryAfterAtLeastOneSecond() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("slots", LimitSpec.concurrency(1))
                .route("/async/*", "slots").build());
        CompletableFuture<HttpResponse<String>> holder = server.getAsync("/async/1");
        AsyncContext held = server.nextStarted();

        HttpResponse<String> refused = server.get("/async/2");
        assertEquals(429, refused.statusCode());
        assertEquals("1", header(refused, "Retry-After"));

        held.complete();
        assertEquals(200, holder.get(10, TimeUnit.SECONDS).statusCode());
    }

    // ---- identity ----

    @Test
    void apiKey_configured_identifiesClient_eachKeyItsOwnBudget_hashed() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route("/*", "p").apiKeyHeader("X-Api-Key").build());

        assertEquals(200, server.get("/x", "X-Api-Key", "key-a").statusCode());
        assertEquals(429, server.get("/x", "X-Api-Key", "key-a").statusCode());
        assertEquals(200, server.get("/x", "X-Api-Key", "key-b").statusCode());
        assertEquals(200, server.get("/x").statusCode()); // by address
        assertEquals(429, server.get("/x").statusCode());

        assertEquals(List.of(Keys.digest("api-key:key-a"), Keys.digest("api-key:key-a"), Keys.digest("api-key:key-b"),
                Keys.digest("ip:127.0.0.1"), Keys.digest("ip:127.0.0.1")), limiters.partitions);
        for (String partition : limiters.partitions) {
            assertTrue(partition.matches("[A-Za-z0-9_-]{24}"), partition);
        }
    }

    @Test
    void customHeaderAndResolver_usedBeforeAddress() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route("/*", "p")
                .identityResolver(req -> req.getHeader("X-Tenant") == null ? null : "tenant:" + req.getHeader("X-Tenant"))
                .build());

        assertEquals(200, server.get("/x", "X-Tenant", "t1").statusCode());
        assertEquals(429, server.get("/x", "X-Tenant", "t1").statusCode());
        assertEquals(200, server.get("/x", "X-Api-Key", "ignored").statusCode()); // falls back to the address
        assertEquals(List.of(Keys.digest("tenant:t1"), Keys.digest("tenant:t1"), Keys.digest("ip:127.0.0.1")),
                limiters.partitions);
    }

    @Test
    void untrustedPeer_forwardedForIgnored() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route("/*", "p").trustedProxies("10.0.0.1").build());

        assertEquals(200, server.get("/x", "X-Forwarded-For", "1.1.1.1").statusCode());
        assertEquals(429, server.get("/x", "X-Forwarded-For", "2.2.2.2").statusCode());
        assertEquals(List.of(Keys.digest("ip:127.0.0.1"), Keys.digest("ip:127.0.0.1")), limiters.partitions);
    }

    @Test
    void trustedPeer_usesRightMostUntrustedForwardedAddress() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route("/*", "p").trustedProxies("127.0.0.1", "10.0.0.0/8").build());

        assertEquals(200, server.get("/x", "X-Forwarded-For", "9.9.9.9, 1.1.1.1, 10.0.0.5").statusCode());
        // A client cannot escape its budget by prepending a forged address.
        assertEquals(429, server.get("/x", "X-Forwarded-For", "8.8.8.8, 1.1.1.1").statusCode());
        assertEquals(200, server.get("/x", "X-Forwarded-For", "2.2.2.2").statusCode());
        assertEquals(List.of(Keys.digest("ip:1.1.1.1"), Keys.digest("ip:1.1.1.1"), Keys.digest("ip:2.2.2.2")),
                limiters.partitions);
    }

    // ---- routes ----

    @Test
    void weightedRoutes_takeTheirCost() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("api", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)))
                .route(Route.of("/api/*", "api").withMethods("POST").withCost(2))
                .route(Route.of("/api/*", "api").withMethods("GET")).build());
        HttpRequest post = server.request("/api/items").POST(HttpRequest.BodyPublishers.noBody()).build();

        assertEquals("\"api\";r=3;t=60", header(server.send(post), "RateLimit"));
        assertEquals("\"api\";r=2;t=60", header(server.get("/api/items"), "RateLimit"));
        assertEquals("\"api\";r=0;t=60", header(server.send(post), "RateLimit"));
        assertEquals(429, server.get("/api").statusCode());
    }

    @Test
    void weightedRoute_refusedWhenFewerPermitsLeftThanItsCost() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("api", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)))
                .route(Route.of("/export", "api").withCost(2)).route("/api/*", "api").build());
        assertEquals(200, server.get("/export").statusCode());

        HttpResponse<String> refused = server.get("/export");
        assertEquals(429, refused.statusCode());
        assertEquals("\"api\";r=1;t=60", header(refused, "RateLimit"));
        assertEquals(200, server.get("/api/x").statusCode());
    }

    @Test
    void unprotectedRoutes_neverTouchTheStore() throws Exception {
        AtomicInteger decisions = new AtomicInteger();
        DecisionListener counter = (limiter, result, nanos) -> decisions.incrementAndGet();
        serve(HttpRateLimiterConfig.builder()
                .policy("login", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                        RateLimitPolicy.EDGE_DEFAULTS.toBuilder().listener(counter).build())
                .route(Route.of("/login", "login").withMethods("POST"))
                .route("/api/*", "login").build());

        for (String path : List.of("/public", "/login", "/apix", "/", "/login/more")) {
            HttpResponse<String> r = server.get(path);
            assertEquals(200, r.statusCode(), path);
            assertFalse(r.headers().firstValue("RateLimit-Policy").isPresent(), path);
        }
        assertEquals(List.of(), limiters.partitions);
        assertEquals(0, decisions.get());

        server.get("/api/x");
        assertEquals(1, decisions.get());
    }

    // ---- concurrency leases ----

    @Test
    void concurrency_servletThrows_leaseReleased() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("slots", LimitSpec.concurrency(1)).route("/boom/*", "slots").build());

        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = server.get("/boom/" + i);
            assertEquals(500, r.statusCode(), "request " + i + " should reach the servlet, not be refused");
        }
    }

    @Test
    void concurrency_syncRequest_releasedWhenDone() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("slots", LimitSpec.concurrency(1)).route("/*", "slots").build());

        for (int i = 0; i < 3; i++) {
            assertEquals(200, server.get("/x").statusCode());
        }
    }

    @Test
    void concurrency_asyncRequest_heldUntilComplete() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("slots", LimitSpec.concurrency(1)).route("/async/*", "slots").build());

        CompletableFuture<HttpResponse<String>> first = server.getAsync("/async/1");
        AsyncContext context = server.nextStarted();
        assertEquals(429, server.get("/async/2").statusCode()); // still held after the servlet returned

        context.complete();
        assertEquals(200, first.get(10, TimeUnit.SECONDS).statusCode());
        server.awaitEnded();

        CompletableFuture<HttpResponse<String>> third = server.getAsync("/async/3");
        server.nextStarted().dispatch(); // ends through an ASYNC dispatch, which the filter passes through
        HttpResponse<String> done = third.get(10, TimeUnit.SECONDS);
        assertEquals("async done", done.body());
        server.awaitEnded();

        CompletableFuture<HttpResponse<String>> fourth = server.getAsync("/async/4");
        server.nextStarted().complete();
        assertEquals(200, fourth.get(10, TimeUnit.SECONDS).statusCode());
    }

    @Test
    void concurrency_asyncTimeout_leaseReleased() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("slots", LimitSpec.concurrency(1))
                .route("/async-timeout/*", "slots").build());

        for (int i = 0; i < 2; i++) {
            CompletableFuture<HttpResponse<String>> r = server.getAsync("/async-timeout/" + i);
            server.nextStarted(); // never completed by the application: the container times it out
            assertEquals(500, r.get(10, TimeUnit.SECONDS).statusCode(), "request " + i + " reached the servlet");
            server.awaitEnded();
        }
    }

    // ---- store failures ----

    /** A store that never answers. */
    private static final class UnreachableStore implements DecisionStore {
        @Override
        public CompletableFuture<Outcomes> run(List<StepRequest> requests) {
            return new CompletableFuture<>();
        }
    }

    private static LimiterOptions unreachable(FailureMode mode) {
        return LimiterOptions.builder().failureMode(mode).decisionTimeout(Duration.ofMillis(50)).maxRetries(0).build();
    }

    @Test
    void storeUnreachable_failsOpenWithDegradedHeader() throws Exception {
        try (RateLimiters down = RateLimiterRuntime.create(new UnreachableStore())) {
            serve(down, HttpRateLimiterConfig.builder()
                    .policy(new RateLimitPolicy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                            RateLimitPolicy.EDGE_DEFAULTS.toBuilder().decisionTimeout(Duration.ofMillis(50)).build()))
                    .route("/*", "p").build());

            for (int i = 0; i < 2; i++) {
                HttpResponse<String> r = server.get("/x");
                assertEquals(200, r.statusCode());
                assertEquals("true", header(r, "RateLimit-Degraded"));
                assertEquals("\"p\";q=1;w=60", header(r, "RateLimit-Policy"));
                assertEquals(null, header(r, "RateLimit")); // nothing is known about what remains
            }
        }
    }

    /**
     * Bug: failure mode {@code deny} with the store down answered {@code 429 quota-exceeded} ("the rate limit of
     * policy 'p' is exhausted"); the refusal is about the store, not the client's quota.
     */
    @Test
    void storeUnreachable_failClosed_answers503TemporaryReducedCapacity() throws Exception {
        try (RateLimiters down = RateLimiterRuntime.create(new UnreachableStore())) {
            serve(down, HttpRateLimiterConfig.builder()
                    .policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)), unreachable(FailureMode.DENY))
                    .route("/*", "p").build());

            HttpResponse<String> r = server.get("/x");
            assertEquals(503, r.statusCode());
            assertEquals("true", header(r, "RateLimit-Degraded"));
            assertEquals("1", header(r, "Retry-After"));
            assertTrue(r.body().startsWith("{\"type\":\"https://iana.org/assignments/http-problem-types"
                    + "#temporary-reduced-capacity\",\"title\":\"Service Unavailable\",\"status\":503,"), r.body());
            assertTrue(r.body().contains("\"violated-policies\":[\"p\"]"), r.body());
            assertFalse(r.body().contains("quota") || r.body().contains("exhausted"), r.body());
        }
    }

    @Test
    void storeUnreachable_underThrow_answers503Problem() throws Exception {
        try (RateLimiters down = RateLimiterRuntime.create(new UnreachableStore())) {
            serve(down, HttpRateLimiterConfig.builder()
                    .policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)), unreachable(FailureMode.THROW))
                    .route("/*", "p").build());

            HttpResponse<String> r = server.get("/x");
            assertEquals(503, r.statusCode());
            assertEquals("application/problem+json", header(r, "Content-Type").replaceAll(";.*", ""));
            assertTrue(r.body().startsWith("{\"type\":\"https://iana.org/assignments/http-problem-types"
                    + "#temporary-reduced-capacity\",\"title\":\"Service Unavailable\",\"status\":503,"), r.body());
            assertTrue(r.body().contains("\"violated-policies\":[\"p\"]"), r.body());
            assertFalse(r.body().contains("Exception"), r.body());
        }
    }

    // ---- container configuration ----

    @Test
    void initParameters_configureTheFilter() throws Exception {
        server = JettyHarness.start(Map.of(
                "sluice.policies.login.algorithm", "sliding-log",
                "sluice.policies.login.permit-limit", "2",
                "sluice.policies.login.window", "PT30S",
                "sluice.routes.1.pattern", "/login",
                "sluice.routes.1.policy", "login",
                "sluice.headers.legacy", "true"),
                Map.of(RateLimitFilter.RATE_LIMITERS_ATTRIBUTE, limiters));

        HttpResponse<String> r = server.get("/login");
        assertEquals("\"login\";q=2;w=30", header(r, "RateLimit-Policy"));
        assertEquals("1", header(r, "RateLimit-Remaining"));
        server.get("/login");
        assertEquals(429, server.get("/login").statusCode());
        assertEquals(200, server.get("/other").statusCode());
    }

    @Test
    void badConfiguration_failsStartUp_namingTheProperty() {
        Exception e = assertThrows(Exception.class, () -> JettyHarness.start(Map.of(
                "sluice.policies.login.algorithm", "fixed-window",
                "sluice.policies.login.permit-limit", "ten",
                "sluice.policies.login.window", "PT1M"),
                Map.of(RateLimitFilter.RATE_LIMITERS_ATTRIBUTE, limiters)));
        String messages = messages(e);
        assertTrue(messages.contains("sluice.policies.login.permit-limit='ten'"), messages);
        assertTrue(messages.contains("a whole number between 1 and"), messages);
    }

    /**
     * Bug: {@code sluice.headers.legacy=yes} (or {@code on}, {@code 1}), which Spring reads as true, failed here; a
     * switch now means what it means in Spring, in any case, and anything else names the setting and the spellings.
     */
    @ParameterizedTest
    @ValueSource(strings = {"yes", "ON", "1", "True"})
    void initParameters_switchSpelledAsSpringSpellsIt_turnsItOn(String spelling) throws Exception {
        server = JettyHarness.start(Map.of(
                "sluice.policies.login.algorithm", "sliding-log",
                "sluice.policies.login.permit-limit", "2",
                "sluice.policies.login.window", "PT30S",
                "sluice.routes.1.pattern", "/login",
                "sluice.routes.1.policy", "login",
                "sluice.headers.legacy", spelling,
                "sluice.headers.enabled", spelling.equals("1") ? "on" : "yes"),
                Map.of(RateLimitFilter.RATE_LIMITERS_ATTRIBUTE, limiters));
        assertEquals("1", header(server.get("/login"), "RateLimit-Remaining"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"no", "OFF", "0", "False"})
    void initParameters_switchSpelledAsSpringSpellsIt_turnsItOff(String spelling) throws Exception {
        server = JettyHarness.start(Map.of(
                "sluice.policies.login.algorithm", "sliding-log",
                "sluice.policies.login.permit-limit", "2",
                "sluice.policies.login.window", "PT30S",
                "sluice.routes.1.pattern", "/login",
                "sluice.routes.1.policy", "login",
                "sluice.headers.enabled", spelling),
                Map.of(RateLimitFilter.RATE_LIMITERS_ATTRIBUTE, limiters));
        HttpResponse<String> r = server.get("/login");
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("RateLimit-Policy").isEmpty(), r.headers().toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"maybe", "flase", "2"})
    void initParameters_switchNeitherTrueNorFalse_failsStartUp_namingSettingValueAndSpellings(String value) {
        Exception e = assertThrows(Exception.class, () -> JettyHarness.start(Map.of(
                "sluice.policies.login.algorithm", "fixed-window",
                "sluice.policies.login.permit-limit", "10",
                "sluice.policies.login.window", "PT1M",
                "sluice.shadow", value),
                Map.of(RateLimitFilter.RATE_LIMITERS_ATTRIBUTE, limiters)));
        assertTrue(messages(e).contains("invalid property sluice.shadow='" + value + "'; expected true or false (also"
                + " yes/no, on/off, 1/0; any case)"), messages(e));
    }

    @Test
    void missingRateLimiters_failsStartUp() {
        Exception e = assertThrows(Exception.class, () -> JettyHarness.start(Map.of(), Map.of()));
        assertTrue(messages(e).contains(RateLimitFilter.RATE_LIMITERS_ATTRIBUTE), messages(e));
    }

    private static String messages(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getMessage()).append(" | ");
            for (Throwable s : c.getSuppressed()) {
                sb.append(messages(s));
            }
        }
        return sb.toString();
    }

}
