package dev.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.Route;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The edge as it is deployed, attacked on a real Jetty: a framework in front that rewrote the peer address,
 * the standard {@code Forwarded} header, a trust-everyone setting, an encoded method override, a broad route
 * that shadowed a narrow one's cost, and patterns that can never match. Limits of 3 unless stated.
 */
final class EdgeAttacksTest {
    private static final String END = "\r\nConnection: close\r\nContent-Length: 0";
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

    private HttpRateLimiterConfig.Builder perClient() {
        return HttpRateLimiterConfig.builder().policy("p", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)))
                .route("/*", "p");
    }

    private List<Integer> statuses(int count, String... headerPerRequest) throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String header = headerPerRequest.length == 0 ? "" : "\r\n" + headerPerRequest[i % headerPerRequest.length]
                    .replace("{i}", Integer.toString(i));
            statuses.add(server.raw("GET /x HTTP/1.1\r\nHost: t" + header + END));
        }
        return statuses;
    }

    /**
     * What Spring's {@code ForwardedHeaderFilter} does before Sluice's filter: the request's address becomes the
     * left-most {@code X-Forwarded-For} entry of any peer, and the forwarding headers are hidden.
     */
    private static final Filter REWRITES_THE_PEER = (request, response, chain) -> chain.doFilter(
            new HttpServletRequestWrapper((HttpServletRequest) request) {
                private final String forwarded = ((HttpServletRequest) request).getHeader("X-Forwarded-For");

                @Override
                public String getRemoteAddr() {
                    return forwarded == null ? super.getRemoteAddr() : forwarded.split(",")[0].strip();
                }

                @Override
                public Enumeration<String> getHeaders(String name) {
                    return ServletRequestView.isForwarding(name) ? Collections.emptyEnumeration() : super.getHeaders(name);
                }

                @Override
                public String getHeader(String name) {
                    return ServletRequestView.isForwarding(name) ? null : super.getHeader(name);
                }
            }, response);

    /** Bug: behind a filter that took the forged left-most entry as the address, 8 of 8 forged requests got 200. */
    @Test
    void forgedLeftMostEntry_behindAFrameworkThatRewroteThePeer_refused() throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, perClient().build()),
                JettyHarness.Setup.DEFAULT.withFilterBefore(REWRITES_THE_PEER));

        assertEquals(List.of(200, 200, 200, 429, 429, 429, 429, 429), statuses(8, "X-Forwarded-For: 198.51.100.{i}"));
    }

    /** Trusted: the container's own headers are read beneath the wrapper that hid them, right-most first. */
    @Test
    void trustedProxy_behindAFrameworkThatHidTheHeaders_realClientFromTheReceivedHeader() throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, perClient().trustedProxies("127.0.0.1").build()),
                JettyHarness.Setup.DEFAULT.withFilterBefore(REWRITES_THE_PEER));

        assertEquals(List.of(200, 200, 200, 429, 429), statuses(5, "X-Forwarded-For: 198.51.100.{i}, 203.0.113.7"));
        assertEquals(List.of(200), statuses(1, "X-Forwarded-For: 203.0.113.8")); // another client
    }

    @Test
    void forwardedHeader_fromATrustedProxy_rightMostUntrustedIsTheClient_forgedLeftMostIgnored() throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, perClient().trustedProxies("127.0.0.1").build()));

        assertEquals(List.of(200, 200, 200, 429, 429), statuses(5,
                "Forwarded: for=198.51.100.{i};proto=http, for=\"203.0.113.7:4711\";by=127.0.0.1"));
        assertEquals(List.of(200, 200, 200, 429), statuses(4, "Forwarded: For=\"[2001:db8:cafe::17]:4711\""));
    }

    @Test
    void forwardedHeader_fromAnUntrustedPeer_ignored() throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, perClient().trustedProxies("10.0.0.0/8").build()));

        assertEquals(List.of(200, 200, 200, 429, 429), statuses(5, "Forwarded: for=198.51.100.{i}"));
    }

    /** A proxy vouches for one header; the client wrote the other, so disagreeing headers give the proxy. */
    @Test
    void bothHeadersDisagree_theTrustedPeerIsTheClient() throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, perClient().trustedProxies("127.0.0.1").build()));

        assertEquals(List.of(200, 200, 200, 429, 429), statuses(5,
                "X-Forwarded-For: 203.0.113.7\r\nForwarded: for=198.51.100.{i}"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0/0", "10.0.0.0/8, ::/0"})
    void trustEveryone_failsStartUp_sayingWhatToChange(String proxies) {
        Properties p = properties();
        p.setProperty("sluice.client.trusted-proxies", proxies);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HttpRateLimiterConfig.fromProperties(p));
        assertTrue(e.getMessage().startsWith("invalid property sluice.client.trusted-proxies='" + proxies + "'; trusted"
                + " proxy range '"), e.getMessage());
        assertTrue(e.getMessage().contains("covers every address") && e.getMessage().contains(
                "sluice.client.allow-trust-all=true"), e.getMessage());

        p.setProperty("sluice.client.allow-trust-all", "true");
        assertTrue(HttpRateLimiterConfig.fromProperties(p).trustedProxies()
                .isTrusted(proxies.contains("::") ? "2001:db8::1" : "198.51.100.1"));
    }

    /**
     * Bug: {@code ?%5Fmethod=GET}, {@code ?_m%65thod=GET} and a form body {@code _method=GET} were not counted on
     * the exhausted GET route, while an override filter that reads the decoded parameter ran the GET. Here an
     * encoded name and a form body the container parses; every spelling is in http-core's {@code RoutesTest}.
     */
    @ParameterizedTest
    @ValueSource(strings = {"POST /api/search?%5Fmethod=GET HTTP/1.1\r\nHost: t\r\nContent-Length: 0",
            "POST /api/search HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: 11\r\n\r\n_method=GET"})
    void encodedMethodOverride_exhaustedGetRoute_refused(String request) throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, HttpRateLimiterConfig.builder()
                .policy("search", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route(Route.of("/api/search", "search").withMethods("GET")).build()));
        assertEquals(200, server.get("/api/search").statusCode());

        assertEquals(429, server.raw(request.replace("Content-Length: 11\r\n\r\n_method=GET",
                "Connection: close\r\nContent-Length: 11\r\n\r\n_method=GET")));
    }

    private static Properties properties() {
        Properties p = new Properties();
        p.setProperty("sluice.policies.p.algorithm", "fixed-window");
        p.setProperty("sluice.policies.p.permit-limit", "3");
        p.setProperty("sluice.policies.p.window", "PT1M");
        p.setProperty("sluice.routes.r.pattern", "/api/*");
        p.setProperty("sluice.routes.r.policy", "p");
        return p;
    }
}
