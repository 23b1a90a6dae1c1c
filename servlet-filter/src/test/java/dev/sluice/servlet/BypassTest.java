package dev.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.Route;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.RateLimiters;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The requests an attacker sends to walk past an exhausted limit, each on a real Jetty with the filter's
 * defaults: a variant of the path the application serves as the same endpoint, HEAD for GET, and a
 * self-chosen identity. Each must be refused (429), or rejected by the container (400), never served.
 */
final class BypassTest {
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

    /** {@code POST /api/login} limited to 2 a minute, already used up by this client. */
    private void exhaustedLogin() throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, HttpRateLimiterConfig.builder()
                .policy("login", LimitSpec.fixedWindow(2, Duration.ofMinutes(1)))
                .route(Route.of("/api/login", "login").withMethods("POST"))
                .build()));
        for (int i = 0; i < 2; i++) {
            assertEquals(200, server.raw("POST /api/login HTTP/1.1\r\nHost: t\r\nContent-Length: 0"));
        }
        assertEquals(429, server.raw("POST /api/login HTTP/1.1\r\nHost: t\r\nContent-Length: 0"));
    }

    /** Bug: {@code POST /api/login/} was served (200) although {@code /api/login} was exhausted. */
    @Test
    void trailingSlash_exhaustedRoute_refused() throws Exception {
        exhaustedLogin();
        assertEquals(429, server.raw("POST /api/login/ HTTP/1.1\r\nHost: t\r\nContent-Length: 0"));
    }

    /** Bug: {@code POST /api/login%20} was served (200): the container decodes it to {@code "/api/login "}. */
    @Test
    void encodedTrailingSpace_exhaustedRoute_refused() throws Exception {
        exhaustedLogin();
        assertEquals(429, server.raw("POST /api/login%20 HTTP/1.1\r\nHost: t\r\nContent-Length: 0"));
    }

    /**
     * Other spellings of the same endpoint that frameworks route to it, one a rule (empty and dot segments, path
     * parameters, case, fullwidth letters, invisible characters, a suffix, encoded separators, a query), as Jetty
     * decodes them: each is refused, or rejected by Jetty itself with 400, but never served. Every spelling of
     * every rule is in http-core's {@code RoutesTest}.
     */
    @ParameterizedTest
    @ValueSource(strings = {"//api//login", "/api/x/../login", "/api/login;a=b", "/API/Login", "/api/%EF%BD%8Cogin",
            "/api/login%E2%80%8B", "/api/login.json", "/api/login%2f", "/api/login%5c", "/api/login?x=1"})
    void pathVariant_exhaustedRoute_neverServed(String path) throws Exception {
        exhaustedLogin();
        int status = server.raw("POST " + path + " HTTP/1.1\r\nHost: t\r\nContent-Length: 0");
        if (status != 400) {
            assertEquals(429, status, path);
        }
    }

    /** Bug: {@code HEAD /api/search} was served (200) on an exhausted {@code GET} route; HttpServlet runs doGet for it. */
    @Test
    void head_exhaustedGetRoute_refused() throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, HttpRateLimiterConfig.builder()
                .policy("search", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route(Route.of("/api/search", "search").withMethods("GET"))
                .build()));
        assertEquals(200, server.get("/api/search").statusCode());
        assertEquals(429, server.get("/api/search").statusCode());

        HttpRequest head = server.request("/api/search").method("HEAD", HttpRequest.BodyPublishers.noBody()).build();
        assertEquals(429, server.send(head).statusCode());
    }

    /**
     * A POST that asks for GET in a method-override header or {@code _method} query parameter (which
     * Jersey's and Spring's override filters honour after this filter) is refused on an exhausted GET route.
     * Every header and spelling is in http-core's {@code RoutesTest}.
     */
    @Test
    void methodOverride_exhaustedGetRoute_refused() throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, HttpRateLimiterConfig.builder()
                .policy("search", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route(Route.of("/api/search", "search").withMethods("GET"))
                .build()));
        assertEquals(200, server.get("/api/search").statusCode());

        assertEquals(429, server.raw("POST /api/search HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n"
                + "X-HTTP-Method-Override: GET"));
        assertEquals(429, server.raw("POST /api/search?_method=GET HTTP/1.1\r\nHost: t\r\nContent-Length: 0"));
    }

    /** A method spelled in lower case is matched as the container sees it, and still limited. */
    @Test
    void lowerCaseMethod_exhaustedRoute_refused() throws Exception {
        exhaustedLogin();
        int status = server.raw("post /api/login HTTP/1.1\r\nHost: t\r\nContent-Length: 0");
        if (status != 400) {
            assertEquals(429, status);
        }
    }

    /**
     * Bug: the default identity was the unchecked {@code X-Api-Key} header, so a new random key per request
     * got a fresh budget each time (200, 200, 200 on an exhausted login route).
     */
    @Test
    void randomApiKeys_exhaustedRoute_refused() throws Exception {
        exhaustedLogin();
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            statuses.add(server.raw("POST /api/login HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nX-Api-Key: random-" + i));
        }
        assertEquals(List.of(429, 429, 429), statuses);
    }

    /** Strict matching is an opt-in: the container's path exactly, so a trailing slash is another path. */
    @Test
    void strictMatching_optIn_comparesTheContainersPathExactly() throws Exception {
        server = JettyHarness.start(new RateLimitFilter(limiters, HttpRateLimiterConfig.builder().strictMatching(true)
                .policy("login", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)))
                .route(Route.of("/api/login", "login").withMethods("POST"))
                .build()));
        assertEquals(200, server.raw("POST /api/login HTTP/1.1\r\nHost: t\r\nContent-Length: 0"));
        assertEquals(429, server.raw("POST /api/login HTTP/1.1\r\nHost: t\r\nContent-Length: 0"));

        assertEquals(200, server.raw("POST /api/login/ HTTP/1.1\r\nHost: t\r\nContent-Length: 0"));
        assertEquals(200, server.raw("POST /API/login HTTP/1.1\r\nHost: t\r\nContent-Length: 0"));
        assertEquals(429, server.raw("POST /api/./login HTTP/1.1\r\nHost: t\r\nContent-Length: 0")); // Jetty's normalizing
    }
}
