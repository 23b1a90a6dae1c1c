package dev.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.Route;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The headers of draft-ietf-httpapi-ratelimit-headers-10 on a real Jetty: {@code t} is the time until more
 * quota arrives for each algorithm (the table in docs/http.md), never the wait for the request's own cost, which is
 * {@code Retry-After}'s, {@code qu} for concurrency, {@code pk} hashed, and a switch.
 * The clock starts on a minute boundary, so every window starts with it.
 */
final class HeadersTest {
    private final ManualClock clock = new ManualClock();
    private final RateLimiters limiters = LocalRateLimiters.create(clock);
    private JettyHarness server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        limiters.close();
    }

    private void serve(LimitSpec spec) throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", spec).route("/*", "p").build());
    }

    private void serve(HttpRateLimiterConfig config) throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, config));
    }

    private String rateLimit() throws Exception {
        return server.get("/x").headers().firstValue("RateLimit").orElse(null);
    }

    /** The refusal's {@code RateLimit} item and {@code Retry-After}, as {@code "<item> | <seconds>"}. */
    private String refusal() throws Exception {
        HttpResponse<String> r = server.get("/x");
        assertEquals(429, r.statusCode());
        return r.headers().firstValue("RateLimit").orElse(null) + " | " + r.headers().firstValue("Retry-After").orElse(null);
    }

    @Test
    void slidingWindow_grantWithoutT_refusalUntilItsRetry() throws Exception {
        serve(LimitSpec.slidingWindow(2, Duration.ofMinutes(1), 6));

        assertEquals("\"p\";r=1", rateLimit()); // the next boundary (10 s) returns nothing: no guess
        clock.advance(Duration.ofMillis(3_500));
        assertEquals("\"p\";r=0", rateLimit());
        assertEquals("\"p\";r=0;t=57 | 57", refusal()); // the first segment's permit returns at 60 s
    }

    @Test
    void slidingLog_grantWithoutT_refusalUntilItsRetry() throws Exception {
        serve(LimitSpec.slidingLog(2, Duration.ofMinutes(1)));

        assertEquals("\"p\";r=1", rateLimit());
        clock.advance(Duration.ofSeconds(20));
        assertEquals("\"p\";r=0", rateLimit());
        assertEquals("\"p\";r=0;t=40 | 40", refusal());
    }

    @Test
    void slidingCounter_grantWithoutT_refusalUntilItsRetry() throws Exception {
        serve(LimitSpec.slidingCounter(1, Duration.ofMinutes(1)));

        assertEquals("\"p\";r=0", rateLimit());
        String refused = refusal();
        String t = refused.substring(refused.indexOf(";t=") + 3, refused.indexOf(" |"));
        assertEquals(t, refused.substring(refused.indexOf("| ") + 2), refused);
    }

    @Test
    void tokenBucket_untilTheNextRefill() throws Exception {
        serve(LimitSpec.tokenBucket(10, 2, Duration.ofSeconds(3)));

        assertEquals("\"p\";r=9;t=3", rateLimit());
        rateLimit();
        assertEquals("\"p\";r=7;t=3", rateLimit()); // full again in 6 s, but the next 2 tokens come in 3
        clock.advance(Duration.ofSeconds(1));
        assertEquals("\"p\";r=6;t=2", rateLimit());
    }

    @Test
    void tokenBucket_refusal_tIsRetryAfter() throws Exception {
        serve(LimitSpec.tokenBucket(1, 1, Duration.ofSeconds(3)));

        assertEquals("\"p\";r=0;t=3", rateLimit());
        clock.advance(Duration.ofMillis(500));
        assertEquals("\"p\";r=0;t=3 | 3", refusal()); // 2.5 s, rounded up
    }

    /**
     * Bug: at cost 3 the refusal's {@code t} was the wait for 3 tokens (6 s, as {@code Retry-After}), while the
     * draft's {@code t} is the time until more quota arrives: the next token, in 2 s.
     */
    @Test
    void tokenBucket_costAboveOne_refusalTIsTheNextRefill_retryAfterTheWaitForTheCost() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.tokenBucket(3, 1, Duration.ofSeconds(2)))
                .route(Route.of("/*", "p").withCost(3)).build());

        assertEquals("\"p\";r=0;t=2", rateLimit());
        assertEquals("\"p\";r=0;t=2 | 6", refusal());
        clock.advance(Duration.ofMillis(2_500));
        assertEquals("\"p\";r=1;t=2 | 4", refusal()); // one token back; the next in 1.5 s
    }

    @Test
    void gcra_untilTheNextPermitIsEarned() throws Exception {
        serve(LimitSpec.gcra(10, Duration.ofMinutes(1), 5)); // one permit every 6 s, burst 5

        assertEquals("\"p\";r=4;t=6", rateLimit());
        assertEquals("\"p\";r=3;t=6", rateLimit());
        clock.advance(Duration.ofSeconds(2));
        assertEquals("\"p\";r=2;t=4", rateLimit());
    }

    @Test
    void gcra_refusal_tIsRetryAfter() throws Exception {
        serve(LimitSpec.gcra(1, Duration.ofMinutes(1), 1));

        assertEquals("\"p\";r=0;t=60", rateLimit());
        clock.advance(Duration.ofSeconds(15));
        assertEquals("\"p\";r=0;t=45 | 45", refusal());
    }

    @Test
    void fixedWindow_refusal_tIsRetryAfter() throws Exception {
        serve(LimitSpec.fixedWindow(1, Duration.ofMinutes(1)));

        assertEquals("\"p\";r=0;t=60", rateLimit());
        clock.advance(Duration.ofMillis(12_300));
        assertEquals("\"p\";r=0;t=48 | 48", refusal());
    }

    @Test
    void concurrency_quotaUnitConcurrentRequests_noWindowNoT() throws Exception {
        serve(LimitSpec.concurrency(3));

        HttpResponse<String> r = server.get("/x");
        assertEquals("\"p\";q=3;qu=\"concurrent-requests\"", r.headers().firstValue("RateLimit-Policy").orElseThrow());
        assertEquals("\"p\";r=2", r.headers().firstValue("RateLimit").orElseThrow());
    }

    @Test
    void partitionKey_optIn_theHashedIdentityNeverTheRawOne() throws Exception {
        serve(HttpRateLimiterConfig.builder().partitionKeys(true).apiKeyHeader("X-Api-Key")
                .policy("p", LimitSpec.fixedWindow(5, Duration.ofMinutes(1))).route("/*", "p").build());

        HttpResponse<String> r = server.get("/x", "X-Api-Key", "secret-key-1");
        // The first 144 bits of the identity's SHA-256, the bytes the store's partition spells in base64url.
        String pk = ";pk=:" + Base64.getEncoder().encodeToString(Arrays.copyOf(
                MessageDigest.getInstance("SHA-256").digest("api-key:secret-key-1".getBytes(StandardCharsets.UTF_8)), 18)) + ":";
        assertEquals("\"p\";q=5;w=60" + pk, r.headers().firstValue("RateLimit-Policy").orElseThrow());
        assertEquals("\"p\";r=4;t=60" + pk, r.headers().firstValue("RateLimit").orElseThrow());
        assertFalse(r.headers().map().toString().contains("secret-key-1"));
    }

    @Test
    void partitionKey_offByDefault() throws Exception {
        serve(LimitSpec.fixedWindow(5, Duration.ofMinutes(1)));
        assertFalse(rateLimit().contains("pk="));
    }

    @Test
    void headersSwitchedOff_noRateLimitFields_refusalKeepsRetryAfterAndBody() throws Exception {
        serve(HttpRateLimiterConfig.builder().headers(false).legacyHeaders(true)
                .policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1))).route("/*", "p").build());

        HttpResponse<String> granted = server.get("/x");
        assertEquals(200, granted.statusCode());
        assertTrue(granted.headers().map().keySet().stream().noneMatch(h -> h.toLowerCase().startsWith("ratelimit")),
                granted.headers().map().toString());
        HttpResponse<String> refused = server.get("/x");
        assertEquals(429, refused.statusCode());
        assertEquals("60", refused.headers().firstValue("Retry-After").orElseThrow());
        assertNull(refused.headers().firstValue("RateLimit").orElse(null));
        assertTrue(refused.body().contains("\"violated-policies\":[\"p\"]"), refused.body());
    }

    @Test
    void problemType_overridable_fromProperties() throws Exception {
        java.util.Properties p = new java.util.Properties();
        p.setProperty("sluice.policies.p.algorithm", "fixed-window");
        p.setProperty("sluice.policies.p.permit-limit", "1");
        p.setProperty("sluice.policies.p.window", "PT1M");
        p.setProperty("sluice.routes.1.pattern", "/*");
        p.setProperty("sluice.routes.1.policy", "p");
        p.setProperty("sluice.problem.type", "about:blank");
        p.setProperty("sluice.headers.enabled", "false");
        serve(HttpRateLimiterConfig.fromProperties(p));
        server.get("/x");

        HttpResponse<String> refused = server.get("/x");
        assertTrue(refused.body().startsWith("{\"type\":\"about:blank\","), refused.body());
        assertFalse(refused.headers().firstValue("RateLimit-Policy").isPresent());
    }
}
