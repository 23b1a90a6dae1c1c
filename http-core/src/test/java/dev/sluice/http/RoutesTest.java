package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which policies apply to a request: the path rules (canonical by default, exact on request), the methods a
 * request counts as (HEAD for GET, a POST's overrides) and the order of the routes. Paths are given as a server
 * hands them over, decoded; the servlet filter's tests send one real request per rule family through Jetty.
 */
final class RoutesTest {
    private static final LimitSpec SPEC = LimitSpec.fixedWindow(100, Duration.ofMinutes(1));

    private static Routes routes(HttpRateLimiterConfig.Builder config) {
        return new Routes(config.build());
    }

    private static Routes login() {
        return routes(HttpRateLimiterConfig.builder().policy("login", SPEC)
                .route(Route.of("/api/login", "login").withMethods("POST")));
    }

    private static Routes search() {
        return routes(HttpRateLimiterConfig.builder().policy("search", SPEC)
                .route(Route.of("/api/search", "search").withMethods("GET")));
    }

    /** The applied policies as {@code name*cost}. */
    private static List<String> applied(Routes routes, Requests request) {
        return routes.match(request).stream().map(a -> a.policy().name() + "*" + a.cost()).toList();
    }

    private static boolean limited(Routes routes, Requests request) {
        return !routes.match(request).isEmpty();
    }

    /**
     * The spellings of {@code /api/login} that frameworks serve as it, decoded as the server decodes them: empty
     * and dot segments, path parameters, case as {@code equalsIgnoreCase} sees it, fullwidth letters, whitespace,
     * control and invisible characters at a segment's ends, a backslash, a suffix.
     */
    @ParameterizedTest
    @ValueSource(strings = {"/api/login", "/api/login/", "/api/login//", "//api//login", "/api/./login", "/api/x/../login",
            "/api/login;a=b", "/api/login/;a=b", "/API/Login", "/api/login ", "/api/login\t", "/api/login\r",
            "/api/login\u00a0", "/api/login\u200b", "/api/login.json", "/api/login\\", "/api/login/.", "/api/LOG\u0130N",
            "/api/\uff4cogin", "/api/login.", "/api/login..;/", "/api/login;", "/x/../api/login", "/api/login/x/..",
            "/x/..\\api/login", "\\api\\login"})
    void canonical_everySpellingOfTheEndpoint_matches(String path) {
        assertTrue(limited(login(), Requests.of("POST", path)), path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/api/loginx", "/api/login/x", "/api/other", "/api", "/", "/api/login.json/x", "/x/api/login"})
    void canonical_otherEndpoints_doNotMatch(String path) {
        assertTrue(!limited(login(), Requests.of("POST", path)), path);
    }

    @Test
    void prefix_matchesItsBaseAndBelow_andEverythingForTheRoot() {
        Routes api = routes(HttpRateLimiterConfig.builder().policy("p", SPEC).route(Route.of("/api/*", "p")));
        assertTrue(limited(api, Requests.of("GET", "/api")));
        assertTrue(limited(api, Requests.of("GET", "/api/x/y")));
        assertTrue(limited(api, Requests.of("GET", "/API/x")));
        assertTrue(!limited(api, Requests.of("GET", "/apix")));
        Routes all = routes(HttpRateLimiterConfig.builder().policy("p", SPEC).route(Route.of("/*", "p")));
        assertTrue(limited(all, Requests.of("DELETE", "/anything/at/all")));
        assertTrue(limited(all, Requests.of("GET", "/")));
    }

    /** Strict matching is opt-in: the server's decoded path as it is. */
    @Test
    void strict_comparesTheServersPathExactly() {
        Routes strict = routes(HttpRateLimiterConfig.builder().strictMatching(true).policy("login", SPEC)
                .route(Route.of("/api/login", "login").withMethods("POST")));
        assertTrue(limited(strict, Requests.of("POST", "/api/login")));
        assertTrue(!limited(strict, Requests.of("POST", "/api/login/")));
        assertTrue(!limited(strict, Requests.of("POST", "/API/login")));
        assertTrue(!limited(strict, Requests.of("POST", "/api/login.json")));
        Routes prefix = routes(HttpRateLimiterConfig.builder().strictMatching(true).policy("p", SPEC)
                .route(Route.of("/api/*", "p")));
        assertTrue(limited(prefix, Requests.of("GET", "/api")));
        assertTrue(limited(prefix, Requests.of("GET", "/api/x")));
        assertTrue(!limited(prefix, Requests.of("GET", "/API/x")));
    }

    /** {@code HttpServlet} answers HEAD by running doGet; a method is matched whatever its case. */
    @Test
    void methods_headCountsAsGet_caseIgnored() {
        assertTrue(limited(search(), Requests.of("HEAD", "/api/search")));
        assertTrue(limited(search(), Requests.of("get", "/api/search")));
        assertTrue(limited(login(), Requests.of("post", "/api/login")));
        assertTrue(!limited(search(), Requests.of("POST", "/api/search")));
        assertTrue(!limited(login(), Requests.of("GET", "/api/login")));
    }

    /** Jersey's and Spring's override filters honour these after the rate limiter has run. */
    @ParameterizedTest
    @ValueSource(strings = {"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"})
    void methodOverrideHeader_onAPost_countsAsTheMethodItAsksFor(String header) {
        assertTrue(limited(search(), Requests.of("POST", "/api/search").header(header, "GET")));
        assertTrue(limited(search(), Requests.of("POST", "/api/search").header(header, " get ")));
        assertTrue(limited(search(), Requests.of("POST", "/api/search").header(header, "HEAD")));
    }

    /** The {@code _method} parameter, decoded as the override filters decode it, from the raw query. */
    @ParameterizedTest
    @ValueSource(strings = {"_method=GET", "%5Fmethod=GET", "_m%65thod=GET", "x=1&_method=%47ET", "a=b;_method=get"})
    void methodOverrideParameter_inTheQuery_decoded(String query) {
        assertTrue(limited(search(), Requests.of("POST", "/api/search").query(query)), query);
    }

    /** The parameters the server parsed, a form body's included. */
    @Test
    void methodOverrideParameter_fromTheServersParameters() {
        assertTrue(limited(search(), Requests.of("POST", "/api/search").parameters("GET")));
    }

    @Test
    void methodOverride_onlyOnAPost_andNotUnderStrictMatching() {
        assertTrue(!limited(search(), Requests.of("PUT", "/api/search").header("X-HTTP-Method-Override", "GET")
                .query("_method=GET")));
        Routes strict = routes(HttpRateLimiterConfig.builder().strictMatching(true).policy("search", SPEC)
                .route(Route.of("/api/search", "search").withMethods("GET")));
        assertTrue(!limited(strict, Requests.of("POST", "/api/search").header("X-HTTP-Method-Override", "GET")
                .query("_method=GET").parametersForbidden()));
    }

    /**
     * With no route limited to methods without POST an override cannot change what applies, so the parameters
     * are never read (reading them would parse a form body).
     */
    @Test
    void methodOverride_parametersNotRead_whenNoOverrideCouldMatter() {
        Routes routes = routes(HttpRateLimiterConfig.builder().policy("p", SPEC)
                .route(Route.of("/a", "p").withMethods("POST", "GET")).route(Route.of("/b", "p")));
        assertTrue(limited(routes, Requests.of("POST", "/a").parametersForbidden()));
        assertTrue(!limited(routes, Requests.of("POST", "/c").header("X-HTTP-Method-Override", "GET")
                .parametersForbidden()));
    }

    /** A few short values are read; the rest (too many, too long, malformed) are passed over. */
    @Test
    void methodOverride_manyAndLongValues_boundedAndStillMatched() {
        Routes delete = routes(HttpRateLimiterConfig.builder().policy("p", SPEC)
                .route(Route.of("/x", "p").withMethods("DELETE")));
        Requests request = Requests.of("POST", "/x").query("_method=" + "A".repeat(5_000) + "&_method=%zz&_method=delete");
        for (int i = 0; i < 1_000; i++) {
            request.header("X-HTTP-Method-Override", "M".repeat(100));
        }
        assertTrue(limited(delete, request));
        Requests late = Requests.of("POST", "/x");
        for (int i = 0; i < 10; i++) {
            late.header("X-HTTP-Method-Override", "PUT");
        }
        late.header("X-HTTP-Method-Override", "DELETE"); // past the values read
        assertTrue(!limited(delete, late));
    }

    /** Every matching route applies, each policy once, with the cost of the most specific route naming it. */
    @Test
    void severalRoutes_eachPolicyOnce_costOfTheMostSpecific() {
        Routes routes = routes(HttpRateLimiterConfig.builder().policy("login", SPEC).policy("api", SPEC)
                .route(Route.of("/api/*", "api", "login"))
                .route(Route.of("/api/login", "login").withMethods("POST").withCost(2)));
        assertEquals(List.of("login*2", "api*1"), applied(routes, Requests.of("POST", "/api/login")));
        assertEquals(List.of("api*1", "login*1"), applied(routes, Requests.of("GET", "/api/login")));
        assertEquals(List.of(), applied(routes, Requests.of("GET", "/other")));
    }

    /**
     * Bug: routes were tried in id order, alphabetical for YAML keys, so {@code api} ({@code /api/*}, cost 1)
     * shadowed {@code export} (cost 10).
     */
    @Test
    void broadRouteFirstById_doesNotShadowTheNarrowRoutesCost() {
        Properties p = new Properties();
        p.setProperty("sluice.policies.per-client.algorithm", "fixed-window");
        p.setProperty("sluice.policies.per-client.permit-limit", "20");
        p.setProperty("sluice.policies.per-client.window", "PT1M");
        p.setProperty("sluice.routes.api.pattern", "/api/*");
        p.setProperty("sluice.routes.api.policy", "per-client");
        p.setProperty("sluice.routes.export.pattern", "/api/export");
        p.setProperty("sluice.routes.export.policy", "per-client");
        p.setProperty("sluice.routes.export.cost", "10");
        Routes routes = new Routes(HttpRateLimiterConfig.fromProperties(p));
        assertEquals(List.of("per-client*10"), applied(routes, Requests.of("GET", "/api/export")));
        assertEquals(List.of("per-client*1"), applied(routes, Requests.of("GET", "/api/other")));
    }

    @Test
    void exactBeforePrefix_longerBaseFirst_whateverTheOrderAdded() {
        Routes routes = routes(HttpRateLimiterConfig.builder().policy("a", SPEC).policy("b", SPEC).policy("c", SPEC)
                .route(Route.of("/*", "a")).route(Route.of("/api/*", "b")).route(Route.of("/api", "c")));
        assertEquals(List.of("c*1", "b*1", "a*1"), applied(routes, Requests.of("GET", "/api")));
    }

    @Test
    void twoRoutesOfEqualSpecificity_refused_unlessTheirMethodsAreDisjoint() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.builder()
                .policy("p", SPEC).route(Route.of("/api/*", "p")).route(Route.of("/API/*", "p").withCost(2)).build());
        assertTrue(e.getMessage().contains("match the same requests with equal specificity"), e.getMessage());
        assertEquals(2, HttpRateLimiterConfig.builder().policy("p", SPEC)
                .route(Route.of("/api/*", "p").withMethods("GET"))
                .route(Route.of("/API/*", "p").withMethods("POST")).build().routes().size());
    }

    /** Settings accepted before that could never match a request: each fails start-up with the rule. */
    @ParameterizedTest
    @ValueSource(strings = {"pattern=/api/users/{id}/reset|templates such as {id} are not expanded",
            "pattern=/api/login?x=1|without a query", "pattern=/api/login#top|without a fragment",
            "pattern=/api/%6cogin|the container decodes %xx", "pattern=/api/login |without spaces",
            "pattern=/api/login;jsessionid=1|without path parameters", "methods=GETT|registered methods",
            "methods=GET,POTS|registered methods"})
    void neverMatchingSetting_failsStartUp_withTheRule(String setting) {
        String assignment = setting.substring(0, setting.indexOf('|'));
        String rule = setting.substring(setting.indexOf('|') + 1);
        Properties p = new Properties();
        p.setProperty("sluice.policies.p.algorithm", "fixed-window");
        p.setProperty("sluice.policies.p.permit-limit", "3");
        p.setProperty("sluice.policies.p.window", "PT1M");
        p.setProperty("sluice.routes.r.pattern", "/api/*");
        p.setProperty("sluice.routes.r.policy", "p");
        p.setProperty("sluice.routes.r." + assignment.substring(0, assignment.indexOf('=')),
                assignment.substring(assignment.indexOf('=') + 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HttpRateLimiterConfig.fromProperties(p));
        assertTrue(e.getMessage().startsWith("invalid property sluice.routes.r." + assignment.substring(0,
                assignment.indexOf('=') + 1) + "'" + assignment.substring(assignment.indexOf('=') + 1) + "'"),
                e.getMessage());
        assertTrue(e.getMessage().contains(rule), e.getMessage());
    }
}
