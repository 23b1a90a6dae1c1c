package dev.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.http.ClientIdentityResolver;
import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.RateLimitPolicy;
import dev.sluice.http.Route;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Who counts as one client, on a real Jetty: what a client can choose must not give it a new budget. */
final class IdentityTest {
    private static final LimitSpec ONE_A_MINUTE = LimitSpec.fixedWindow(1, Duration.ofMinutes(1));

    private final ManualClock clock = new ManualClock();
    private final RecordingRateLimiters limiters = new RecordingRateLimiters(LocalRateLimiters.create(clock));
    private JettyHarness server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        limiters.close();
    }

    private void serve(HttpRateLimiterConfig config) throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, config));
    }

    private int get(String path, String... headers) throws Exception {
        return server.get(path, headers).statusCode();
    }

    @Test
    void defaults_identifyByAddress_headersIgnored() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", ONE_A_MINUTE).route("/*", "p").build());

        assertEquals(200, get("/x", "X-Api-Key", "a"));
        assertEquals(429, get("/x", "X-Api-Key", "b"));
        assertEquals(429, get("/x", "X-Forwarded-For", "9.9.9.9")); // no proxy is trusted by default
        assertEquals(List.of(Keys.digest("ip:127.0.0.1")), limiters.partitions.stream().distinct().toList());
    }

    @Test
    void ipv6_groupedBy64_oneHostCannotRotateThroughItsSubnet() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", ONE_A_MINUTE).route("/*", "p")
                .trustedProxies("127.0.0.1").build());

        assertEquals(200, get("/x", "X-Forwarded-For", "2001:db8:1:2::a"));
        assertEquals(429, get("/x", "X-Forwarded-For", "2001:db8:1:2:ffff:ffff:ffff:ffff"));
        assertEquals(429, get("/x", "X-Forwarded-For", "[2001:DB8:1:2::b]:443"));
        assertEquals(200, get("/x", "X-Forwarded-For", "2001:db8:1:3::a")); // the next /64: another client
        assertEquals(List.of(Keys.digest("ip:2001:db8:1:2:0:0:0:0/64"), Keys.digest("ip:2001:db8:1:3:0:0:0:0/64")),
                limiters.partitions.stream().distinct().toList());
    }

    @Test
    void ipv6Prefix_configurable() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", ONE_A_MINUTE).route("/*", "p")
                .trustedProxies("127.0.0.1").ipv6Prefix(128).build());

        assertEquals(200, get("/x", "X-Forwarded-For", "2001:db8::a"));
        assertEquals(200, get("/x", "X-Forwarded-For", "2001:db8::b"));
        assertEquals(429, get("/x", "X-Forwarded-For", "2001:db8:0:0:0:0:0:b"));
    }

    @Test
    void ipv4MappedIpv6_isTheIpv4Client() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", ONE_A_MINUTE).route("/*", "p")
                .trustedProxies("127.0.0.1").build());

        assertEquals(200, get("/x", "X-Forwarded-For", "203.0.113.7"));
        assertEquals(429, get("/x", "X-Forwarded-For", "::ffff:203.0.113.7"));
        assertEquals(200, get("/x", "X-Forwarded-For", "203.0.113.8")); // not grouped: a /32 is one host
    }

    @Test
    void apiKey_onlyWhenConfigured_elseTheAddress() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", ONE_A_MINUTE).route("/*", "p").apiKeyHeader("X-Key").build());

        assertEquals(200, get("/x", "X-Key", "k1"));
        assertEquals(429, get("/x", "X-Key", "k1"));
        assertEquals(200, get("/x", "X-Api-Key", "k1")); // another header: no key, so the address
        assertEquals(List.of(Keys.digest("api-key:k1"), Keys.digest("api-key:k1"), Keys.digest("ip:127.0.0.1")),
                limiters.partitions);
    }

    /** One policy per key and one per address: rotating keys from one address is stopped by the second. */
    @Test
    void perKeyAndPerAddress_rotatingKeys_refusedByTheAddressPolicy() throws Exception {
        serve(HttpRateLimiterConfig.builder()
                .policy(RateLimitPolicy.of("per-key", ONE_A_MINUTE).withIdentity(ClientIdentityResolver.apiKey("X-Api-Key")))
                .policy("per-address", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)))
                .route(Route.of("/login", "per-key", "per-address"))
                .build());

        assertEquals(200, get("/login", "X-Api-Key", "k0"));
        assertEquals(429, get("/login", "X-Api-Key", "k0")); // per key; per-address only probed, not charged
        assertEquals(200, get("/login", "X-Api-Key", "k1"));
        HttpResponse<String> third = server.get("/login", "X-Api-Key", "k2");
        assertEquals(200, third.statusCode());
        assertTrue(third.headers().firstValue("RateLimit").orElseThrow().contains("\"per-address\";r=0"),
                third.headers().map().toString());
        HttpResponse<String> rotated = server.get("/login", "X-Api-Key", "k3");
        assertEquals(429, rotated.statusCode());
        assertTrue(rotated.body().contains("\"violated-policies\":[\"per-address\"]"), rotated.body());
    }

    @Test
    void principal_fromContainerAuthentication_eachUserItsOwnBudget() throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, HttpRateLimiterConfig.builder()
                        .policy("p", ONE_A_MINUTE).route("/*", "p")
                        .identityResolver(ClientIdentityResolver.principal()).build()),
                JettyHarness.Setup.DEFAULT.withBasicAuth(Map.of("alice", "a-secret", "bob", "b-secret")));

        assertEquals(401, get("/x")); // the container refuses before the filter runs
        assertEquals(200, get("/x", "Authorization", basic("alice", "a-secret")));
        assertEquals(429, get("/x", "Authorization", basic("alice", "a-secret")));
        assertEquals(200, get("/x", "Authorization", basic("bob", "b-secret")));
        assertEquals(List.of(Keys.digest("principal:alice"), Keys.digest("principal:alice"),
                Keys.digest("principal:bob")), limiters.partitions);
    }

    @Test
    void principal_anonymous_fallsBackToTheAddress() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", ONE_A_MINUTE).route("/*", "p")
                .identityResolver(ClientIdentityResolver.principal()).build());

        assertEquals(200, get("/x"));
        assertEquals(List.of(Keys.digest("ip:127.0.0.1")), limiters.partitions);
    }

    @Test
    void global_oneBudgetForEveryClient() throws Exception {
        serve(HttpRateLimiterConfig.builder().trustedProxies("127.0.0.1")
                .policy(RateLimitPolicy.of("everyone", LimitSpec.fixedWindow(2, Duration.ofMinutes(1)))
                        .withIdentity(ClientIdentityResolver.global()))
                .route("/*", "everyone").build());

        assertEquals(200, get("/x", "X-Forwarded-For", "1.1.1.1"));
        assertEquals(200, get("/x", "X-Forwarded-For", "2.2.2.2"));
        assertEquals(429, get("/x", "X-Forwarded-For", "3.3.3.3"));
    }

    @Test
    void resolverThatThrows_theAddressInstead_never500() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", ONE_A_MINUTE).route("/*", "p")
                .identityResolver(request -> {
                    throw new IllegalStateException("broken resolver");
                }).build());

        assertEquals(200, get("/x"));
        assertEquals(429, get("/x"));
        assertEquals(List.of(Keys.digest("ip:127.0.0.1"), Keys.digest("ip:127.0.0.1")), limiters.partitions);
    }

    /**
     * An identity that is not well-formed UTF-16 (a principal name with a lone surrogate) cannot become a key: it
     * would share "?"'s budget. The request is answered 400, fail-open or not, and earlier policies get their
     * permits back.
     */
    @Test
    void identityWithALoneSurrogate_answers400_andEarlierPoliciesAreRefunded() throws Exception {
        serve(HttpRateLimiterConfig.builder()
                .policy(RateLimitPolicy.of("everyone", LimitSpec.fixedWindow(2, Duration.ofMinutes(1)))
                        .withIdentity(ClientIdentityResolver.global()))
                .policy(RateLimitPolicy.of("per-user", ONE_A_MINUTE).withIdentity(request -> {
                    String user = request.getHeader("X-User");
                    return user == null ? null : "user:" + user.replace("LONE", "\uD800");
                }))
                .route("/*", "everyone", "per-user").build());

        HttpResponse<String> bad = server.get("/x", "X-User", "bobLONE");
        assertEquals(400, bad.statusCode(), bad.body());
        assertTrue(bad.body().contains("not well-formed") && bad.body().contains("index 8"), bad.body());
        assertEquals(400, get("/x", "X-User", "bobLONE"));
        assertEquals(200, get("/x", "X-User", "bob?"), "the refused requests took nothing from 'everyone'");
        assertEquals(200, get("/x", "X-User", "alice"));
        assertEquals(429, get("/x", "X-User", "carol"));
    }

    @Test
    void properties_identityPerPolicyAndDefault() throws Exception {
        Properties p = new Properties();
        p.setProperty("sluice.client.api-key-header", "X-Api-Key");
        p.setProperty("sluice.client.identity", "api-key,address");
        p.setProperty("sluice.policies.per-key.algorithm", "fixed-window");
        p.setProperty("sluice.policies.per-key.permit-limit", "1");
        p.setProperty("sluice.policies.per-key.window", "PT1M");
        p.setProperty("sluice.policies.everyone.algorithm", "fixed-window");
        p.setProperty("sluice.policies.everyone.permit-limit", "3");
        p.setProperty("sluice.policies.everyone.window", "PT1M");
        p.setProperty("sluice.policies.everyone.identity", "global");
        p.setProperty("sluice.routes.1.pattern", "/*");
        p.setProperty("sluice.routes.1.policy", "per-key, everyone");
        serve(HttpRateLimiterConfig.fromProperties(p));

        assertEquals(200, get("/x", "X-Api-Key", "a"));
        assertEquals(200, get("/x", "X-Api-Key", "b"));
        assertEquals(List.of(Keys.digest("api-key:a"), Keys.digest("global"), Keys.digest("api-key:b"),
                Keys.digest("global")), limiters.partitions);
    }

    @Test
    void properties_apiKeyIdentityWithoutHeader_refusedNamingBoth() {
        Properties p = new Properties();
        p.setProperty("sluice.client.identity", "api-key");
        String m = assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.fromProperties(p)).getMessage();
        assertEquals("invalid property sluice.client.identity=api-key; identity api-key needs the header that carries"
                + " the key: set sluice.client.api-key-header", m);
    }

    @Test
    void properties_unknownIdentity_refused() {
        Properties p = new Properties();
        p.setProperty("sluice.client.identity", "cookie");
        String m = assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.fromProperties(p)).getMessage();
        assertTrue(m.startsWith("invalid property sluice.client.identity='cookie'; expected one of address, api-key,"
                + " principal, global"), m);
    }

    @Test
    void properties_badIpv6Prefix_refused() {
        Properties p = new Properties();
        p.setProperty("sluice.client.ipv6-prefix", "0");
        assertEquals("invalid property sluice.client.ipv6-prefix='0'; expected a whole number between 1 and 128",
                assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.fromProperties(p)).getMessage());
    }

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }
}
