package dev.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.Route;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Oversized and malformed input on a real Jetty that accepts request heads up to 512 KiB: a normal
 * decision or a 400, never a 500, and nothing kept that grows with the input.
 */
final class BadInputTest {
    private static final String HEAD_END = "\r\nContent-Length: 0";

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

    private void serve(HttpRateLimiterConfig.Builder config, Filter before) throws Exception {
        JettyHarness.Setup setup = JettyHarness.Setup.DEFAULT.withRequestHeaderBytes(512 * 1024);
        server = JettyHarness.start(new RateLimitFilter(limiters, config.build()),
                before == null ? setup : setup.withFilterBefore(before));
    }

    /** One per minute for every path, {@code X-Forwarded-For} believed from 127.0.0.1. */
    private void serveBehindProxy() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route("/*", "p").trustedProxies("127.0.0.1"), null);
    }

    private int get(String forwardedFor) throws Exception {
        return server.raw("GET /x HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: " + forwardedFor + HEAD_END);
    }

    @Test
    void forwardedFor_100KiBOfEntries_decidedByTheRightMost() throws Exception {
        serveBehindProxy();
        StringBuilder value = new StringBuilder();
        for (int i = 0; value.length() < 100 * 1024; i++) {
            value.append("198.51.").append(i / 250 % 250).append('.').append(i % 250).append(", ");
        }
        value.append("203.0.113.9");

        assertEquals(200, get(value.toString()));
        assertEquals(429, get(value.toString()));
        assertEquals(List.of(Keys.digest("ip:203.0.113.9"), Keys.digest("ip:203.0.113.9")), limiters.partitions);
    }

    @Test
    void forwardedFor_100KiBSingleEntry_theProxyIsTheClient() throws Exception {
        serveBehindProxy();
        String huge = "1".repeat(100 * 1024);

        assertEquals(200, get(huge));
        assertEquals(429, get("9" + huge)); // another huge value: still no new budget
        assertEquals(List.of(Keys.digest("ip:127.0.0.1"), Keys.digest("ip:127.0.0.1")), limiters.partitions);
    }

    @Test
    void forwardedFor_1000Entries_and1000HeaderLines_decidedByTheRightMost() throws Exception {
        serveBehindProxy();
        StringBuilder entries = new StringBuilder();
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 1_000; i++) {
            entries.append(i == 0 ? "" : ",").append("198.51.100.").append(i % 250);
            lines.append("\r\nX-Forwarded-For: 198.51.").append(i / 250).append('.').append(i % 250);
        }

        assertEquals(200, get(entries + ",203.0.113.1"));
        assertEquals(200, server.raw("GET /x HTTP/1.1\r\nHost: t" + lines + "\r\nX-Forwarded-For: 203.0.113.2" + HEAD_END));
        assertEquals(List.of(Keys.digest("ip:203.0.113.1"), Keys.digest("ip:203.0.113.2")), limiters.partitions);
    }

    /** Entries that are no address: each request is decided, and none of them buys a budget of its own. */
    @Test
    void forwardedFor_invalidAddresses_noNewBudget_never500() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(1_000, Duration.ofMinutes(1)))
                .route("/*", "p").trustedProxies("127.0.0.1"), null);
        List<String> invalid = List.of("garbage", "unknown", "_hidden", "999.1.1.1", "1.2.3.4.5", "1.2.3", "::g",
                "[::1", "::1]", ":::", "1::2::3", "%eth0", "..:", ".::1", "[]", "-1.2.3.4",
                "0x7f.0.0.1", "\u0663.\u0663.\u0663.\u0663", "\u00ff\u00fe", "1.2.3.4 5.6.7.8", ",,,,", "\t");
        List<Integer> statuses = new ArrayList<>();
        for (String v : invalid) {
            statuses.add(server.raw(("GET /x HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: 203.0.113.5, " + v + HEAD_END)
                    .getBytes(StandardCharsets.UTF_8)));
        }
        assertTrue(statuses.stream().allMatch(s -> s == 200 || s == 400), statuses.toString());
        assertTrue(limiters.partitions.stream().allMatch(p -> p.equals(Keys.digest("ip:127.0.0.1"))
                || p.equals(Keys.digest("ip:203.0.113.5"))), limiters.partitions.toString());
        assertEquals(Set.of(Keys.digest("ip:127.0.0.1")), Set.copyOf(limiters.partitions.subList(0, 4)));
    }

    @Test
    void nonAsciiAndMalformedPaths_decidedOr400_never500() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(1_000, Duration.ofMinutes(1)))
                .route("/api/*", "p"), null);
        List<byte[]> lines = new ArrayList<>();
        for (String path : List.of("/api/l\u00f6gin", "/api/\u00fc/\u4e2d\u6587", "/api/\ud83d\ude00")) {
            lines.add(("GET " + path + " HTTP/1.1").getBytes(StandardCharsets.UTF_8));
        }
        for (String path : List.of("/api/%C3%B6", "/api/%FF", "/api/%C3", "/api/%C0%AF", "/api/%E2%80%AE", "/api/%ED%A0%80",
                "/api/%F4%90%80%80", "/api/%", "/api/%zz", "/api/" + "a/".repeat(3_000), "/api/" + "%E2%80%8B".repeat(500))) {
            lines.add(("GET " + path + " HTTP/1.1").getBytes(StandardCharsets.ISO_8859_1));
        }
        List<Integer> statuses = new ArrayList<>();
        for (byte[] line : lines) {
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            head.write(line);
            head.write(("\r\nHost: t" + HEAD_END).getBytes(StandardCharsets.ISO_8859_1));
            statuses.add(server.raw(head.toByteArray()));
        }
        assertTrue(statuses.stream().allMatch(s -> s == 200 || s == 400), statuses.toString());
        assertTrue(statuses.contains(200), statuses.toString());
    }

    @Test
    void missingOrInvalidRemoteAddress_oneSharedBudget() throws Exception {
        // As a server component that recorded the connector's peer would (a Unix socket has no IP address).
        List<String> remotes = new ArrayList<>(List.of("", "not-an-address", "/run/app.sock", "[::1"));
        Filter before = (request, response, chain) -> {
            request.setAttribute(RateLimitFilter.PEER_ADDRESS_ATTRIBUTE, remotes.remove(0));
            chain.doFilter(request, response);
        };
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route("/*", "p").trustedProxies("10.0.0.0/8"), before);

        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            statuses.add(server.get("/x", "X-Forwarded-For", "203.0.113." + i).statusCode());
        }
        assertEquals(List.of(200, 429, 429, 429), statuses);
        assertEquals(Set.of(Keys.digest("ip:unknown")), Set.copyOf(limiters.partitions));
    }

    @Test
    void hugeApiKey_normalDecision_storedAsItsHash() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route("/*", "p").apiKeyHeader("X-Api-Key"), null);
        String key = "k".repeat(200 * 1024);

        assertEquals(200, server.raw("GET /x HTTP/1.1\r\nHost: t\r\nX-Api-Key: " + key + HEAD_END));
        assertEquals(429, server.raw("GET /x HTTP/1.1\r\nHost: t\r\nX-Api-Key: " + key + HEAD_END));
        assertEquals(List.of(Keys.digest("api-key:" + key), Keys.digest("api-key:" + key)), limiters.partitions);
    }

    @Test
    void manyAndLongMethodOverrides_normalDecision() throws Exception {
        serve(HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route(Route.of("/x", "p").withMethods("DELETE")), null);
        StringBuilder head = new StringBuilder("POST /x?_method=" + "A".repeat(5_000) + "&_method=%zz&_method=delete"
                + " HTTP/1.1\r\nHost: t");
        for (int i = 0; i < 1_000; i++) {
            head.append("\r\nX-HTTP-Method-Override: ").append("M".repeat(100));
        }

        assertEquals(200, server.raw(head + HEAD_END));
        assertEquals(429, server.raw(head + HEAD_END));
    }
}
