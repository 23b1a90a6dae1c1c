package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Why a request was refused: the debug line on {@link HttpRateLimiter#REFUSAL_LOGGER} (captured from
 * {@code java.util.logging}, the platform logger's backend here), the problem body's {@code refused-by} and the
 * bounded trace of refused requests, for both drivers and the gateway's forms.
 */
final class RefusalsTest {
    private final ManualClock clock = new ManualClock();
    private final RateLimiters limiters = LocalRateLimiters.create(clock);
    private final List<HttpRateLimiter> created = new ArrayList<>();
    private final Logger logger = Logger.getLogger(HttpRateLimiter.REFUSAL_LOGGER);
    private final List<String> lines = new ArrayList<>();
    private final Handler recorder = new Handler() {
        @Override
        public synchronized void publish(LogRecord record) {
            lines.add(record.getLevel() + " " + record.getMessage());
        }

        @Override public void flush() {}
        @Override public void close() {}
    };
    private Level level;

    @BeforeEach
    void record() {
        level = logger.getLevel();
        logger.setLevel(Level.FINE);
        logger.addHandler(recorder);
    }

    @AfterEach
    void close() {
        logger.removeHandler(recorder);
        logger.setLevel(level);
        created.forEach(HttpRateLimiter::close);
        limiters.close();
    }

    private HttpRateLimiter limiter(HttpRateLimiterConfig.Builder config) {
        HttpRateLimiter r = new HttpRateLimiter(limiters, config.build());
        created.add(r);
        return r;
    }

    /** Two a minute per client, and for everyone a thousand, on /login and on everything. */
    private static HttpRateLimiterConfig.Builder login() {
        return HttpRateLimiterConfig.builder()
                .policy("login", LimitSpec.fixedWindow(2, Duration.ofMinutes(1)))
                .policy(RateLimitPolicy.of("everyone", LimitSpec.fixedWindow(1_000, Duration.ofMinutes(1)))
                        .withIdentity(ClientIdentityResolver.global()))
                .route(Route.of("/login", "login"))
                .route(Route.of("/*", "everyone"));
    }

    /** The hash a policy keyed on the address counts {@code address} under. */
    private static String key(HttpRateLimiter r, String address) {
        return r.partition(r.identity(Requests.of("GET", "/").from(address)));
    }

    @Test
    void refusal_oneDebugLine_policyKeyHashNumbersMethodPathRoutes() {
        HttpRateLimiter r = limiter(login());
        Requests request = Requests.of("POST", "/login").query("user=alice");
        r.decide(request);
        r.decide(request);
        assertEquals(List.of(), lines, "nothing is logged for grants");

        assertEquals(429, r.decide(request).status());

        String key = key(r, "192.0.2.1");
        assertEquals(List.of("FINE refused policy=login mode=enforced key=" + key + " remaining=0 limit=2"
                + " reset=60.000s retry-after=60.000s method=POST path=/login routes=/login,/*"), lines);
        assertFalse(lines.get(0).contains("192.0.2.1"), "never the identity");
    }

    @Test
    void refusal_asynchronousDriver_sameLine() {
        HttpRateLimiter r = limiter(login());
        Requests request = Requests.of("POST", "/login");
        r.decideAsync(request).join();
        r.decideAsync(request).join();
        clock.advance(Duration.ofMillis(1_500));

        assertEquals(429, r.decideAsync(request).join().status());

        assertEquals(List.of("FINE refused policy=login mode=enforced key=" + key(r, "192.0.2.1")
                + " remaining=0 limit=2 reset=58.500s retry-after=58.500s method=POST path=/login routes=/login,/*"),
                lines);
    }

    @Test
    void shadowRefusal_loggedAsShadow_requestProceeds_tracedAsNotRefused() {
        HttpRateLimiter r = limiter(login().shadow(true));
        Requests request = Requests.of("GET", "/login");
        r.decide(request);
        r.decide(request);

        assertTrue(r.decide(request).proceeds());

        assertEquals(List.of("FINE refused policy=login mode=shadow key=" + key(r, "192.0.2.1")
                + " remaining=0 limit=2 reset=60.000s retry-after=60.000s method=GET path=/login routes=/login,/*"),
                lines);
        RefusedRequest traced = r.refusals().get(0);
        assertFalse(traced.refused());
        assertEquals("shadow-refused", traced.policies().get(0).outcome());
        assertTrue(traced.policies().get(0).shadow());
    }

    @Test
    void loggerOff_noLine_traceStillKept() {
        logger.setLevel(Level.INFO);
        HttpRateLimiter r = limiter(login());
        Requests request = Requests.of("GET", "/login");
        for (int i = 0; i < 3; i++) {
            r.decide(request);
        }
        assertEquals(List.of(), lines);
        assertEquals(1, r.refusals().size());
    }

    @Test
    void trace_routesPoliciesAndWhatEachDecided_identityHashed() {
        HttpRateLimiter r = limiter(login());
        Requests request = Requests.of("POST", "/login").query("password=secret");
        r.decide(request);
        r.decide(request);
        clock.advance(Duration.ofSeconds(10));

        r.decide(request);

        List<RefusedRequest> trace = r.refusals();
        assertEquals(1, trace.size());
        RefusedRequest t = trace.get(0);
        assertEquals("POST", t.method());
        assertEquals("/login", t.path(), "without the query string");
        assertEquals(List.of("/login", "/*"), t.routes());
        assertTrue(t.refused());
        String key = key(r, "192.0.2.1");
        assertEquals(List.of(
                new RefusedRequest.PolicyOutcome("login", "refused", false, key, 1, 0, 2, Duration.ofSeconds(50),
                        Duration.ofSeconds(50)),
                new RefusedRequest.PolicyOutcome("everyone", "skipped", false, r.partition("global"), 0, 998, 1_000,
                        Duration.ofSeconds(50), null)), t.policies());
        assertFalse(t.toString().contains("192.0.2.1"));
        assertFalse(t.toString().contains("secret"));
    }

    @Test
    void trace_bounded_keepsTheNewestFirst() {
        HttpRateLimiter r = limiter(login().refusalTrace(3));
        for (int i = 0; i < 10; i++) {
            r.decide(Requests.of("GET", "/login").from("192.0.2.1"));
        }
        r.decide(Requests.of("GET", "/login").from("192.0.2.9"));
        r.decide(Requests.of("GET", "/login").from("192.0.2.9"));
        r.decide(Requests.of("GET", "/login").from("192.0.2.9"));

        List<RefusedRequest> trace = r.refusals();
        assertEquals(3, trace.size(), "8 refused, 3 kept");
        assertEquals(key(r, "192.0.2.9"), trace.get(0).policies().get(0).key());
        assertEquals(key(r, "192.0.2.1"), trace.get(1).policies().get(0).key());
        assertEquals(9, lines.size(), "every refusal is still logged");
    }

    /** A flood from many threads replaces entries: the trace never holds more than its bound, each entry once. */
    @Test
    void trace_floodFromManyThreads_staysAtItsBound() throws Exception {
        logger.setLevel(Level.INFO);
        HttpRateLimiter r = limiter(login().refusalTrace(5));
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            String address = "192.0.2." + (10 + t);
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 2_000; i++) {
                    r.decide(Requests.of("GET", "/login").query("attempt=" + i).from(address));
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
        List<RefusedRequest> trace = r.refusals();
        assertEquals(5, trace.size());
        assertEquals(5, trace.stream().distinct().count());
        assertEquals(new PolicyStatistics(8, 7_992, 0, 0, 0, 0), r.statistics().get("login"));
    }

    @Test
    void trace_zero_keepsNothing() {
        HttpRateLimiter r = limiter(login().refusalTrace(0));
        for (int i = 0; i < 3; i++) {
            r.decide(Requests.of("GET", "/login"));
        }
        assertEquals(List.of(), r.refusals());
        assertEquals(1, lines.size());
    }

    @Test
    void trace_sharedByRestrictedViews() {
        HttpRateLimiter r = limiter(login());
        HttpRateLimiter early = r.restrictedTo(p -> p.equals("login"));
        for (int i = 0; i < 3; i++) {
            early.decide(Requests.of("GET", "/login"));
        }
        assertEquals(1, r.refusals().size());
    }

    @Test
    void pathAndMethod_controlCharactersEncoded_longOnesCut() {
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.builder()
                .policy("all", LimitSpec.fixedWindow(1, Duration.ofMinutes(1))).route(Route.of("/*", "all")));
        String forged = "/x\r\nrefused policy=other\u2028\u202e x";
        r.decide(Requests.of("GET", forged));
        r.decide(Requests.of("GET", forged));
        r.decide(Requests.of("GET", "/" + "a".repeat(5_000)));

        List<RefusedRequest> trace = r.refusals();
        assertEquals("/" + "a".repeat(RefusedRequest.MAX_PATH - 1) + "...", trace.get(0).path());
        assertEquals("/x%0D%0Arefused%20policy=other%E2%80%A8%E2%80%AE%20x", trace.get(1).path());
        assertTrue(lines.get(0).contains(" path=/x%0D%0Arefused%20policy=other%E2%80%A8%E2%80%AE%20x routes=/*"), lines.get(0));
        assertEquals(2, lines.size());
    }

    /** The gateway's RequestRateLimiter form: no request, the policies named; the trace shows what ran. */
    @Test
    void keyedForm_tracedWithoutRequest_namedPoliciesOnly() {
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.builder()
                .policy("wide", LimitSpec.fixedWindow(10, Duration.ofMinutes(1)))
                .policy("tight", LimitSpec.fixedWindow(1, Duration.ofMinutes(1))));
        r.decideAsync("key:1", List.of("wide", "tight"), 1).join();

        assertEquals(429, r.decideAsync("key:1", List.of("wide", "tight"), 1).join().status());

        String key = r.partition("key:1");
        assertEquals(List.of("FINE refused policy=tight mode=enforced key=" + key + " remaining=0 limit=1"
                + " reset=60.000s retry-after=60.000s method=- path=- routes=-"), lines);
        RefusedRequest t = r.refusals().get(0);
        assertNull(t.method());
        assertNull(t.path());
        assertEquals(List.of(), t.routes());
        assertEquals(List.of("granted", "refused"), t.policies().stream().map(RefusedRequest.PolicyOutcome::outcome)
                .toList());
        assertEquals(9, t.policies().get(0).remaining(), "the grant given back");
    }

    /** The Sluice gateway filter's form: the request, the policies its route named, that route. */
    @Test
    void namedPoliciesForm_requestShown_theServersRoute() {
        HttpRateLimiter r = limiter(login());
        Requests request = Requests.of("GET", "/elsewhere");
        for (int i = 0; i < 3; i++) {
            r.decideAsync(request, List.of("login"), "gateway-login").join();
        }
        r.decideAsync(request, List.of("login")).join();
        assertEquals(List.of("FINE refused policy=login mode=enforced key=" + key(r, "192.0.2.1")
                + " remaining=0 limit=2 reset=60.000s retry-after=60.000s method=GET path=/elsewhere"
                + " routes=gateway-login", "FINE refused policy=login mode=enforced key=" + key(r, "192.0.2.1")
                + " remaining=0 limit=2 reset=60.000s retry-after=60.000s method=GET path=/elsewhere routes=-"), lines);
        assertEquals(List.of(), r.refusals().get(0).routes());
        assertEquals(List.of("gateway-login"), r.refusals().get(1).routes());
    }

    @Test
    void problemBody_refusedByOnlyWhenAskedFor() {
        HttpRateLimiter plain = limiter(login());
        Requests request = Requests.of("GET", "/login");
        for (int i = 0; i < 2; i++) {
            plain.decide(request);
        }
        HttpDecision refused = plain.decide(request);
        assertFalse(refused.bodyText().contains("refused-by"), refused.bodyText());
        assertEquals(Map.of(), refused.problemExtensions());

        HttpRateLimiter told = limiter(HttpRateLimiterConfig.builder()
                .policy("told", LimitSpec.fixedWindow(2, Duration.ofMinutes(1))).route(Route.of("/login", "told"))
                .problemDecisions(true));
        for (int i = 0; i < 2; i++) {
            told.decide(request);
        }
        clock.advance(Duration.ofMillis(20_500));
        HttpDecision explained = told.decide(request);

        String key = key(told, "192.0.2.1");
        assertTrue(explained.bodyText().endsWith(",\"violated-policies\":[\"told\"],\"refused-by\":[{\"policy\":"
                + "\"told\",\"key\":\"" + key + "\",\"remaining\":0,\"limit\":2,\"reset\":40,\"retry-after\":40}]}"),
                explained.bodyText());
        assertEquals(Map.of("refused-by", List.of(Map.of("policy", "told", "key", key, "remaining", 0L, "limit", 2L,
                "reset", 40L, "retry-after", 40L))), explained.problemExtensions());
        assertFalse(explained.bodyText().contains("192.0.2.1"));
    }

    @Test
    void refusalDecidedElsewhere_carriesRefusedBy_loggedAndTraced() {
        HttpRateLimiter r = limiter(login().problemDecisions(true));
        String key = r.partition("user:7");
        r.limiter("login").tryAcquire(key, 2);
        HttpDecision answer = r.refusal("login", key, r.limiter("login").tryAcquire(key, 1), 1);
        assertEquals(List.of(Map.of("policy", "login", "key", key, "remaining", 0L, "limit", 2L, "reset", 60L,
                "retry-after", 60L)), answer.problemExtensions().get("refused-by"));
        assertEquals(List.of("FINE refused policy=login mode=enforced key=" + key + " remaining=0 limit=2"
                + " reset=60.000s retry-after=60.000s method=- path=- routes=-"), lines);
        assertEquals("refused", r.refusals().get(0).policies().get(0).outcome());
    }

    @Test
    void settings_readFromProperties_withTheirBounds() {
        Properties p = new Properties();
        p.setProperty("sluice.problem.decisions", "true");
        p.setProperty("sluice.trace.refused-requests", "7");
        HttpRateLimiterConfig c = HttpRateLimiterConfig.fromProperties(p);
        assertTrue(c.problemDecisions());
        assertEquals(7, c.refusalTrace());

        HttpRateLimiterConfig defaults = HttpRateLimiterConfig.fromProperties(new Properties());
        assertFalse(defaults.problemDecisions());
        assertEquals(100, defaults.refusalTrace());

        p.setProperty("sluice.trace.refused-requests", "100001");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HttpRateLimiterConfig.fromProperties(p));
        assertEquals("invalid property sluice.trace.refused-requests='100001'; expected a whole number between 0"
                + " and 100000", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.builder().refusalTrace(-1));
    }
}
