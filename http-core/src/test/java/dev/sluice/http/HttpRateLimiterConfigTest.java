package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Durability;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.LimitSpec;
import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class HttpRateLimiterConfigTest {

    private static Properties props(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return p;
    }

    private static String error(String text) {
        return assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.fromProperties(props(text)))
                .getMessage();
    }

    private static HttpRateLimiterConfig config(String text) {
        return HttpRateLimiterConfig.fromProperties(props(text));
    }

    private static final String LOGIN = """
            sluice.policies.login.algorithm=fixed-window
            sluice.policies.login.permit-limit=10
            sluice.policies.login.window=PT1M
            """;

    @Test
    void fromProperties_everyAlgorithmAndSetting() {
        HttpRateLimiterConfig c = HttpRateLimiterConfig.fromProperties(props(LOGIN + """
                sluice.policies.sw.algorithm=sliding-window
                sluice.policies.sw.permit-limit=100
                sluice.policies.sw.window=PT1M
                sluice.policies.sw.segments=6
                sluice.policies.log.algorithm=sliding-log
                sluice.policies.log.permit-limit=5
                sluice.policies.log.window=PT10S
                sluice.policies.sc.algorithm=sliding-counter
                sluice.policies.sc.permit-limit=50
                sluice.policies.sc.window=PT1H
                sluice.policies.tb.algorithm=token-bucket
                sluice.policies.tb.permit-limit=20
                sluice.policies.tb.tokens-per-period=5
                sluice.policies.tb.replenishment-period=PT10S
                sluice.policies.tb.queue-limit=4
                sluice.policies.g.algorithm=gcra
                sluice.policies.g.permit-limit=10
                sluice.policies.g.window=PT1S
                sluice.policies.g.burst=3
                sluice.policies.g.failure-mode=deny
                sluice.policies.c.algorithm=concurrency
                sluice.policies.c.permit-limit=8
                sluice.policies.c.lease-duration=PT2M
                sluice.policies.c.failure-mode=THROW
                sluice.policies.c.decision-timeout=PT0.2S
                sluice.policies.c.max-retries=1
                sluice.routes.10.pattern=/api/*
                sluice.routes.10.policy=tb
                sluice.routes.2.pattern=/login
                sluice.routes.2.methods=post, get
                sluice.routes.2.policy=login
                sluice.routes.2.cost=2
                sluice.client.api-key-header=X-Key
                sluice.client.trusted-proxies=10.0.0.0/8, ::1
                sluice.headers.legacy=true
                sluice.problem.type=https://example.com/problems/rate-limited
                other.setting=ignored
                """));

        assertEquals(LimitSpec.fixedWindow(10, Duration.ofMinutes(1)), c.policies().get("login").spec());
        assertEquals(LimitSpec.slidingWindow(100, Duration.ofMinutes(1), 6), c.policies().get("sw").spec());
        assertEquals(LimitSpec.slidingLog(5, Duration.ofSeconds(10)), c.policies().get("log").spec());
        assertEquals(LimitSpec.slidingCounter(50, Duration.ofHours(1)), c.policies().get("sc").spec());
        assertEquals(LimitSpec.tokenBucket(20, 5, Duration.ofSeconds(10)), c.policies().get("tb").spec());
        assertEquals(LimitSpec.gcra(10, Duration.ofSeconds(1), 3), c.policies().get("g").spec());
        assertEquals(LimitSpec.concurrency(8, Duration.ofMinutes(2)), c.policies().get("c").spec());
        assertEquals(4, c.policies().get("tb").options().queueLimit());
        assertEquals(FailureMode.ALLOW, c.policies().get("login").options().failureMode());
        assertEquals(FailureMode.DENY, c.policies().get("g").options().failureMode());
        assertEquals(FailureMode.THROW, c.policies().get("c").options().failureMode());
        assertEquals(Duration.ofMillis(200), c.policies().get("c").options().decisionTimeout());
        assertEquals(1, c.policies().get("c").options().maxRetries());
        // Numeric route ids in numeric order: 2 before 10.
        assertEquals(List.of(new Route("/login", Set.of("GET", "POST"), List.of("login"), 2), Route.of("/api/*", "tb")),
                c.routes());
        assertTrue(c.legacyHeaders());
        assertEquals("https://example.com/problems/rate-limited", c.problemType().toString());
        assertTrue(c.trustedProxies().isTrusted("10.1.2.3"));
        assertTrue(c.trustedProxies().isTrusted("::1"));
    }

    @Test
    void unknownAlgorithm_namesPropertyValueAndChoices() {
        assertEquals("invalid property sluice.policies.login.algorithm='leaky-bucket'; expected one of [fixed-window,"
                        + " sliding-window, sliding-log, sliding-counter, token-bucket, gcra, concurrency,"
                        + " calendar-window]",
                error("sluice.policies.login.algorithm=leaky-bucket"));
    }

    @Test
    void missingAlgorithm_namesProperty() {
        assertTrue(error("sluice.policies.login.permit-limit=3").startsWith(
                "missing property sluice.policies.login.algorithm; expected one of"));
    }

    @Test
    void badNumber_namesPropertyValueAndRange() {
        assertEquals("invalid property sluice.policies.login.permit-limit='ten'; expected a whole number between 1"
                + " and 1000000000", error(LOGIN.replace("=10", "=ten")));
    }

    @Test
    void zeroLimit_refused() {
        assertTrue(error(LOGIN.replace("=10", "=0")).startsWith("invalid property sluice.policies.login.permit-limit='0'"));
    }

    @Test
    void badDuration_namesPropertyAndBothFormats() {
        for (String bad : new String[] {"60", "1min", "0s", "-1m", "1.5m", "PT0S", "P-1D", "m"}) {
            assertEquals("invalid property sluice.policies.login.window='" + bad + "'; expected a positive duration,"
                    + " ISO-8601 (PT1M, PT30S, PT0.5S) or a whole number with a unit of ns, us, ms, s, m, h or d"
                    + " (1m, 30s, 500ms)", error(LOGIN.replace("PT1M", bad)));
        }
    }

    @Test
    void bootDurations_meanTheSameAsIso8601() {
        String[][] same = {{"1m", "PT1M"}, {"500ms", "PT0.5S"}, {"2h", "PT2H"}, {"10s", "PT10S"}, {"1d", "P1D"},
            {"1000000us", "PT1S"}, {"1000000000ns", "PT1S"}, {"90S", "PT90S"}};
        for (String[] pair : same) {
            assertEquals(config(LOGIN.replace("PT1M", pair[1])).policies().get("login").spec(),
                    config(LOGIN.replace("PT1M", pair[0])).policies().get("login").spec(), pair[0]);
        }
    }

    @Test
    void missingWindow_namesPropertyAndAlgorithm() {
        assertTrue(error(LOGIN.replace("sluice.policies.login.window=PT1M", ""))
                .startsWith("missing property sluice.policies.login.window; expected a positive duration, ISO-8601"));
    }

    @Test
    void settingOfAnotherAlgorithm_refused() {
        String m = error(LOGIN + "sluice.policies.login.burst=5\n");
        assertTrue(m.startsWith("unknown property sluice.policies.login.burst='5' for algorithm fixed-window;"), m);
    }

    @Test
    void specRule_attributedToItsProperty() {
        String m = error("""
                sluice.policies.sw.algorithm=sliding-window
                sluice.policies.sw.permit-limit=10
                sluice.policies.sw.window=PT1M
                sluice.policies.sw.segments=7
                """);
        assertTrue(m.startsWith("invalid propert"), m);
        assertTrue(m.contains("sluice.policies.sw"), m);
        assertTrue(m.contains("not divisible by segmentsPerWindow 7"), m);

        String log = error("""
                sluice.policies.log.algorithm=sliding-log
                sluice.policies.log.permit-limit=200000
                sluice.policies.log.window=PT1M
                """);
        assertTrue(log.startsWith("invalid property sluice.policies.log.permit-limit='200000'; permitLimit must be"
                + " between 1 and 100000"), log);
    }

    @Test
    void durability_eachValueInPropertyForm_badValueNamesChoices() {
        assertEquals(Durability.REPLICATED_ASYNC, config(LOGIN + "sluice.policies.login.durability=replicated-async\n")
                .policies().get("login").options().durability());
        assertEquals(Durability.EPHEMERAL, config(LOGIN + "sluice.policies.login.durability=ephemeral\n")
                .policies().get("login").options().durability());
        assertEquals(Durability.REPLICATED, config(LOGIN).policies().get("login").options().durability());
        assertEquals("invalid property sluice.policies.login.durability='async'; expected one of [replicated,"
                + " ephemeral, replicated-async]", error(LOGIN + "sluice.policies.login.durability=async\n"));
    }

    @Test
    void badFailureMode_namesChoices() {
        assertEquals("invalid property sluice.policies.login.failure-mode='open'; expected one of [throw, allow, deny, local]",
                error(LOGIN + "sluice.policies.login.failure-mode=open\n"));
    }

    @Test
    void unknownTopLevelKey_refused() {
        assertTrue(error("sluice.polices.login.algorithm=gcra").startsWith(
                "unknown property sluice.polices.login.algorithm='gcra'; expected sluice.policies."));
    }

    @Test
    void routeToUnknownPolicy_refused() {
        assertEquals("invalid property sluice.routes.1.policy='logn'; expected one of the defined policies [login]",
                error(LOGIN + "sluice.routes.1.pattern=/login\nsluice.routes.1.policy=logn\n"));
    }

    @Test
    void routeCostAboveLimit_refused() {
        assertEquals("invalid property sluice.routes.1.cost='11'; expected a whole number between 1 and 10 (the limit"
                        + " of policy 'login')",
                error(LOGIN + "sluice.routes.1.pattern=/login\nsluice.routes.1.policy=login\nsluice.routes.1.cost=11\n"));
    }

    @Test
    void badRoutePattern_refused() {
        String m = error(LOGIN + "sluice.routes.1.pattern=/api/*/x\nsluice.routes.1.policy=login\n");
        assertTrue(m.startsWith("invalid property sluice.routes.1.pattern='/api/*/x';"), m);
    }

    @Test
    void badRouteMethods_refused() {
        String m = error(LOGIN + "sluice.routes.1.pattern=/x\nsluice.routes.1.policy=login\nsluice.routes.1.methods=GET;POST\n");
        assertTrue(m.startsWith("invalid property sluice.routes.1.methods='GET;POST'; expected a comma-separated list"), m);
    }

    @Test
    void missingRoutePattern_refused() {
        assertTrue(error(LOGIN + "sluice.routes.a.policy=login\n").startsWith("missing property sluice.routes.a.pattern"));
    }

    @Test
    void badTrustedProxy_refused() {
        String m = error("sluice.client.trusted-proxies=10.0.0.1, proxy.example.com");
        assertTrue(m.startsWith("invalid property sluice.client.trusted-proxies='10.0.0.1, proxy.example.com';"
                + " trusted proxy must be an IP address or CIDR range"), m);
    }

    /**
     * Bug: {@code yes}, {@code on} and {@code 1}, which Spring reads as true, were refused here, so one switch
     * was written two ways; every spelling Spring's conversion accepts now means here what it means there.
     */
    @ParameterizedTest
    @ValueSource(strings = {"true", "TRUE", "yes", "Yes", "on", "ON", "1", " true "})
    void booleanSwitch_springsTrueSpellings_turnItOn(String spelling) {
        HttpRateLimiterConfig c = config(LOGIN + "sluice.strict-matching=" + spelling + "\nsluice.shadow=" + spelling
                + "\nsluice.policies.login.shadow=" + spelling + "\n");
        assertTrue(c.strictMatching(), spelling);
        assertTrue(c.shadow(), spelling);
        assertTrue(c.policies().get("login").shadow(), spelling);
    }

    @ParameterizedTest
    @ValueSource(strings = {"false", "FALSE", "no", "No", "off", "OFF", "0"})
    void booleanSwitch_springsFalseSpellings_turnItOff(String spelling) {
        HttpRateLimiterConfig c = config(LOGIN + "sluice.headers.enabled=" + spelling + "\nsluice.shadow=" + spelling
                + "\n");
        assertFalse(c.headers(), spelling);
        assertFalse(c.shadow(), spelling);
    }

    /** A value that is neither fails, naming the setting, the value and every accepted spelling. */
    @ParameterizedTest
    @ValueSource(strings = {"maybe", "flase", "2", "y", "enabled", "truee"})
    void booleanSwitch_otherValue_refusedNamingSettingValueAndSpellings(String value) {
        assertEquals("invalid property sluice.headers.legacy='" + value + "'; expected true or false (also yes/no,"
                + " on/off, 1/0; any case)", error("sluice.headers.legacy=" + value));
    }

    @Test
    void badHeaderName_refused() {
        assertTrue(error("sluice.client.api-key-header=X Api Key")
                .startsWith("invalid property sluice.client.api-key-header='X Api Key'"));
    }

    @Test
    void builder_routeToUndefinedPolicy_refused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HttpRateLimiterConfig.builder().route("/x", "nope").build());
        assertEquals("route /x names policy 'nope', which is not defined; defined policies: []", e.getMessage());
    }

    @Test
    void builder_duplicatePolicy_refused() {
        HttpRateLimiterConfig.Builder b = HttpRateLimiterConfig.builder().policy("p", LimitSpec.concurrency(1));
        assertThrows(IllegalArgumentException.class, () -> b.policy("p", LimitSpec.concurrency(2)));
    }

    @Test
    void route_validation() {
        assertThrows(IllegalArgumentException.class, () -> Route.of("api/*", "p"));
        assertThrows(IllegalArgumentException.class, () -> Route.of("/a*", "p"));
        assertThrows(IllegalArgumentException.class, () -> Route.of("/a b", "p"));
        assertThrows(IllegalArgumentException.class, () -> Route.of("/a", "p").withCost(0));
        assertThrows(IllegalArgumentException.class, () -> Route.of("/a", "p").withMethods("GE T"));
        assertThrows(NullPointerException.class, () -> Route.of(null, "p"));
    }

    @Test
    void route_matching() {
        Route prefix = Route.of("/api/*", "p");
        assertTrue(prefix.matches("GET", "/api"));
        assertTrue(prefix.matches("GET", "/api/x/y"));
        assertTrue(!prefix.matches("GET", "/apix"));
        Route exact = Route.of("/login", "p").withMethods("post");
        assertTrue(exact.matches("POST", "/login"));
        assertTrue(!exact.matches("GET", "/login"));
        assertTrue(exact.matches("POST", "/login/")); // canonical: the endpoint an application serves there
        assertTrue(exact.matches("post", "/LOGIN;jsessionid=1"));
        assertTrue(exact.matches("POST", "/login.json"));
        assertTrue(!exact.matches("POST", "/login/x"));
        assertTrue(!exact.matches("POST", "/loginx"));
        assertTrue(Route.of("/api/search", "p").withMethods("GET").matches("HEAD", "/api/search"));
        assertTrue(Route.of("/*", "p").matches("DELETE", "/anything"));
    }

    @Test
    void policyName_mustBePrintableAscii() {
        assertThrows(IllegalArgumentException.class, () -> RateLimitPolicy.of("lög\u00e9", LimitSpec.concurrency(1)));
        assertThrows(IllegalArgumentException.class, () -> RateLimitPolicy.of("", LimitSpec.concurrency(1)));
    }

    @Test
    void windowSeconds_perAlgorithm() {
        assertEquals(60, Responses.windowSeconds(LimitSpec.fixedWindow(1, Duration.ofMinutes(1))));
        assertEquals(2, Responses.windowSeconds(LimitSpec.slidingLog(1, Duration.ofMillis(1_001))));
        assertEquals(15, Responses.windowSeconds(LimitSpec.tokenBucket(10, 2, Duration.ofSeconds(3))));
        assertEquals(2, Responses.windowSeconds(LimitSpec.gcra(10, Duration.ofSeconds(1), 15))); // 1.5 s rounded up
        assertEquals(-1, Responses.windowSeconds(LimitSpec.concurrency(3)));
    }

    @Test
    void policyNameWithQuote_escapedInHeader() {
        assertEquals("\"a\\\"b\";q=3;qu=\"concurrent-requests\"",
                Responses.policyField(RateLimitPolicy.of("a\"b", LimitSpec.concurrency(3))));
    }

    @Test
    void capacity_fromProperties_defaultsAndValidation() {
        assertEquals(dev.sluice.limiter.Capacity.defaults(), HttpRateLimiterConfig.fromProperties(props(LOGIN)).capacity());
        assertEquals(dev.sluice.limiter.Capacity.maxKeys(5_000).refuseNewKeys(),
                HttpRateLimiterConfig.fromProperties(props(LOGIN + """
                        sluice.capacity.max-keys=5000
                        sluice.capacity.policy=refuse-new-keys
                        """)).capacity());
        assertEquals(dev.sluice.limiter.Capacity.heapPercent(10).evictLeastRecentlyUsedResettingBudgets().withOverflowCells(64),
                HttpRateLimiterConfig.fromProperties(props(LOGIN + """
                        sluice.capacity.heap-percent=10
                        sluice.capacity.policy=EVICT-RESETTING-BUDGETS
                        sluice.capacity.overflow-cells=64
                        """)).capacity());
        assertEquals(dev.sluice.limiter.Capacity.maxKeys(1_000), HttpRateLimiterConfig.fromProperties(props(LOGIN
                + "sluice.capacity.max-bytes=400000\n")).capacity());
        assertEquals("invalid property sluice.capacity.policy='lru'; expected one of [overflow, refuse-new-keys,"
                + " evict-resetting-budgets]", error(LOGIN + "sluice.capacity.policy=lru\n"));
        assertEquals("invalid property sluice.capacity.max-keys='0'; expected a whole number between 1 and 2147483647",
                error(LOGIN + "sluice.capacity.max-keys=0\n"));
        assertTrue(error(LOGIN + "sluice.capacity.max-keys=5\nsluice.capacity.heap-percent=5\n")
                .startsWith("set one of sluice.capacity.max-keys"));
    }

    @Test
    void fromProperties_edgeSettings() {
        HttpRateLimiterConfig c = HttpRateLimiterConfig.fromProperties(props(LOGIN + """
                sluice.policies.other.algorithm=concurrency
                sluice.policies.other.permit-limit=4
                sluice.routes.1.pattern=/api/*
                sluice.routes.1.policy=login, other
                sluice.routes.1.cost=4
                sluice.strict-matching=true
                sluice.shadow=true
                sluice.headers.enabled=false
                sluice.headers.partition-key=true
                sluice.client.ipv6-prefix=48
                """));
        assertEquals(List.of(new Route("/api/*", Set.of(), List.of("login", "other"), 4)), c.routes());
        assertTrue(c.strictMatching());
        assertTrue(c.shadow());
        assertTrue(!c.headers());
        assertTrue(c.partitionKeys());
        assertEquals(48, c.ipv6Prefix());
        assertEquals(HttpRateLimiterConfig.QUOTA_EXCEEDED, HttpRateLimiterConfig.builder().build().problemType());
    }

    @Test
    void routeWithSeveralPolicies_costAboveTheLowestLimit_refused() {
        assertEquals("invalid property sluice.routes.1.cost='5'; expected a whole number between 1 and 4 (the lowest"
                        + " limit of policies 'login,other')",
                error(LOGIN + "sluice.policies.other.algorithm=concurrency\nsluice.policies.other.permit-limit=4\n"
                        + "sluice.routes.1.pattern=/x\nsluice.routes.1.policy=login,other\nsluice.routes.1.cost=5\n"));
    }

    @Test
    void routeWithSeveralPolicies_oneUnknown_refused() {
        assertEquals("invalid property sluice.routes.1.policy='login,,x'; expected one of the defined policies [login],"
                        + " or several separated by commas",
                error(LOGIN + "sluice.routes.1.pattern=/x\nsluice.routes.1.policy=login,,x\n"));
    }

    @Test
    void route_samePolicyTwice_refused() {
        assertEquals("route /x names policy 'p' twice",
                assertThrows(IllegalArgumentException.class, () -> Route.of("/x", "p", "p")).getMessage());
    }

    @Test
    void badShadowAndSwitches_refused() {
        String expected = "; expected true or false (also yes/no, on/off, 1/0; any case)";
        assertEquals("invalid property sluice.policies.login.shadow='onn'" + expected,
                error(LOGIN + "sluice.policies.login.shadow=onn\n"));
        assertEquals("invalid property sluice.strict-matching='10'" + expected, error("sluice.strict-matching=10"));
        assertEquals("invalid property sluice.headers.enabled='nope'" + expected, error("sluice.headers.enabled=nope"));
    }

    @Test
    void unknownTopLevelKey_listsEveryKnownOne() {
        String m = error("sluice.header.enabled=false");
        assertTrue(m.contains(PropertiesReader.TOP_LEVEL.toString()), m);
    }
}
