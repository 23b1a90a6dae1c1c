package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.Plans;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A policy whose limit is chosen per client from its plan, at the HTTP edge: the plan is read only from what the
 * server trusts, the headers and the problem body name it, a client whose plan changes keeps what it consumed, and an
 * unknown plan gets the default plan or a 403.
 */
final class PlansEdgeTest {
    private static final String PROXY = "10.0.0.7";
    private final ManualClock clock = new ManualClock();
    private final RateLimiters limiters = LocalRateLimiters.create(clock);
    private HttpRateLimiter limiter;

    @AfterEach
    void close() {
        if (limiter != null) {
            limiter.close();
        }
        limiters.close();
    }

    private static Properties planned(String... more) {
        Properties p = new Properties();
        p.setProperty("sluice.policies.api.algorithm", "fixed-window");
        p.setProperty("sluice.policies.api.window", "PT1M");
        p.setProperty("sluice.policies.api.plan-from", "header:X-Plan");
        p.setProperty("sluice.policies.api.default-plan", "free");
        p.setProperty("sluice.policies.api.plans.free.permit-limit", "3");
        p.setProperty("sluice.policies.api.plans.pro.permit-limit", "5");
        p.setProperty("sluice.client.trusted-proxies", PROXY);
        p.setProperty("sluice.routes.1.pattern", "/api/*");
        p.setProperty("sluice.routes.1.policy", "api");
        for (int i = 0; i < more.length; i += 2) {
            if (more[i + 1] == null) {
                p.remove(more[i]);
            } else {
                p.setProperty(more[i], more[i + 1]);
            }
        }
        return p;
    }

    private HttpRateLimiter limiter(HttpRateLimiterConfig config) {
        limiter = new HttpRateLimiter(limiters, config);
        return limiter;
    }

    private static String header(HttpDecision d, String name) {
        return d.headers().stream().filter(h -> h.getKey().equals(name)).map(Map.Entry::getValue).findFirst()
                .orElse(null);
    }

    private static int granted(HttpRateLimiter r, Requests request, int attempts) {
        int granted = 0;
        for (int i = 0; i < attempts; i++) {
            granted += r.decide(request).proceeds() ? 1 : 0;
        }
        return granted;
    }

    @Test
    void planHeader_fromAClient_ignored_fromATrustedProxy_honoured() {
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.fromProperties(planned()));
        Requests attacker = Requests.of("GET", "/api/x").from("192.0.2.9").header("X-Plan", "pro");
        assertEquals(3, granted(r, attacker, 10), "the free limit: a client cannot name its own plan");
        Requests proxied = Requests.of("GET", "/api/x").from(PROXY).header("X-Forwarded-For", "192.0.2.10")
                .header("X-Plan", "pro");
        assertEquals(5, granted(r, proxied, 10), "the pro limit, set by the trusted proxy");
    }

    @Test
    void headersAndProblemBody_nameThePlanAndItsLimit() {
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.fromProperties(planned()));
        Requests pro = Requests.of("GET", "/api/x").from(PROXY).header("X-Plan", "PRO");
        HttpDecision first = r.decide(pro);
        assertEquals("\"api\";q=5;w=60;plan=\"pro\"", header(first, "RateLimit-Policy"));
        assertEquals("\"api\";r=4;t=60", header(first, "RateLimit"));
        granted(r, pro, 4);
        HttpDecision refused = r.decide(pro);
        assertEquals(429, refused.status());
        assertTrue(refused.bodyText().contains("\"plans\":[{\"policy\":\"api\",\"plan\":\"pro\",\"limit\":5,"
                + "\"window\":60}]"), refused.bodyText());
        assertTrue(refused.detail().contains("(policy 'api' of plan 'pro': 5 per 60 s)"), refused.detail());
        HttpDecision free = r.decide(Requests.of("GET", "/api/x").from("192.0.2.3"));
        assertEquals("\"api\";q=3;w=60;plan=\"free\"", header(free, "RateLimit-Policy"));
    }

    @Test
    void unknownPlan_default_getsTheDefaultPlansLimit() {
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.fromProperties(planned()));
        Requests enterprise = Requests.of("GET", "/api/x").from(PROXY).header("X-Plan", "enterprise");
        assertEquals(3, granted(r, enterprise, 10));
    }

    @Test
    void unknownPlan_refused_403WithoutRetryAfter_andTakesNothing() {
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.fromProperties(planned(
                "sluice.policies.api.default-plan", null, "sluice.policies.api.unknown-plan", "refuse")));
        Requests none = Requests.of("GET", "/api/x").from(PROXY).header("X-Forwarded-For", "192.0.2.20");
        HttpDecision refused = r.decide(none);
        assertEquals(403, refused.status());
        assertNull(header(refused, "Retry-After"));
        assertNull(header(refused, "RateLimit"));
        assertTrue(refused.bodyText().contains("No plan of policy 'api' applies to this client."), refused.bodyText());
        assertEquals(403, r.decideAsync(none).join().status());
        Requests free = Requests.of("GET", "/api/x").from(PROXY).header("X-Forwarded-For", "192.0.2.20")
                .header("X-Plan", "free");
        assertEquals(3, granted(r, free, 10), "the refusals took nothing");
    }

    @Test
    void planChanges_clientKeepsWhatItConsumed_bothDrivers() {
        Map<String, String> planOf = new ConcurrentHashMap<>(Map.of("ip:192.0.2.1", "free"));
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.builder()
                .policy("api", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)))
                .plans("api", Plans.builder().plan("free", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)))
                        .plan("pro", LimitSpec.fixedWindow(5, Duration.ofMinutes(1))).defaultPlan("free").build(),
                        request -> planOf.get(r0(request)))
                .route("/api/*", "api").build());
        Requests alice = Requests.of("GET", "/api/x");
        assertEquals(2, granted(r, alice, 2));
        planOf.put("ip:192.0.2.1", "pro");
        assertTrue(r.decideAsync(alice).join().proceeds());
        assertEquals(2, granted(r, alice, 10), "5 for pro, less the 3 taken");
        assertEquals("resolver", r.config().planSource("api"));
    }

    private static String r0(HttpRequestView request) {
        return "ip:" + request.getRemoteAddr();
    }

    @Test
    void resolverThrows_decidedAsNoPlan() {
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.builder()
                .policy("api", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)))
                .plans("api", Plans.builder().plan("free", LimitSpec.fixedWindow(2, Duration.ofMinutes(1)))
                        .defaultPlan("free").build(), request -> {
                            throw new IllegalStateException("no records");
                        })
                .route("/api/*", "api").build());
        assertEquals(2, granted(r, Requests.of("GET", "/api/x"), 5));
    }

    // ---- settings ----

    private static String error(Properties p) {
        return assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.fromProperties(p)).getMessage();
    }

    @Test
    void settings_plansOverrideThePolicysLimitSettings() {
        HttpRateLimiterConfig config = HttpRateLimiterConfig.fromProperties(planned(
                "sluice.policies.api.plans.pro.window", "PT2M"));
        assertEquals(LimitSpec.fixedWindow(3, Duration.ofMinutes(1)), config.plans().get("api").spec("free"));
        assertEquals(LimitSpec.fixedWindow(5, Duration.ofMinutes(2)), config.plans().get("api").spec("pro"));
        assertEquals(LimitSpec.fixedWindow(3, Duration.ofMinutes(1)), config.policies().get("api").spec());
        assertEquals("header:X-Plan", config.planSource("api"));
    }

    @Test
    void settings_missingPlanFrom_named() {
        assertEquals("missing property sluice.policies.api.plan-from; a policy with plans needs where a client's plan"
                + " is read: claim:<name>, attribute:<name>, authority:<prefix>, header:<name> (honoured only from"
                + " sluice.client.trusted-proxies), bean or bean:<name>",
                error(planned("sluice.policies.api.plan-from", null)));
    }

    @Test
    void settings_badPlanFrom_named() {
        assertTrue(error(planned("sluice.policies.api.plan-from", "cookie:plan"))
                .startsWith("invalid property sluice.policies.api.plan-from='cookie:plan'; expected claim:<name>"));
        assertTrue(error(planned("sluice.policies.api.plan-from", "claim:"))
                .startsWith("invalid property sluice.policies.api.plan-from='claim:'"));
        assertTrue(error(planned("sluice.policies.api.plan-from", "header:X Plan"))
                .contains("expected an HTTP header name after header:"));
    }

    @Test
    void settings_claimWithoutASource_saysWhatProvidesIt() {
        String e = error(planned("sluice.policies.api.plan-from", "claim:plan"));
        assertTrue(e.startsWith("invalid property sluice.policies.api.plan-from='claim:plan'; plans read from claim"
                + " need the principal's claims"), e);
    }

    @Test
    void settings_defaultPlanNotAPlan_named() {
        assertEquals("invalid property sluice.policies.api.default-plan='basic'; expected one of the plans [free, pro]",
                error(planned("sluice.policies.api.default-plan", "basic")));
    }

    @Test
    void settings_noDefaultPlan_named() {
        assertTrue(error(planned("sluice.policies.api.default-plan", null))
                .startsWith("missing property sluice.policies.api.default-plan;"));
    }

    @Test
    void settings_defaultPlanAndRefuse_named() {
        assertTrue(error(planned("sluice.policies.api.unknown-plan", "refuse"))
                .startsWith("invalid property sluice.policies.api.default-plan='free' with"
                        + " sluice.policies.api.unknown-plan=refuse"));
        assertEquals("invalid property sluice.policies.api.unknown-plan='allow'; expected default or refuse",
                error(planned("sluice.policies.api.unknown-plan", "allow")));
    }

    @Test
    void settings_planSettingOfAnotherAlgorithm_named() {
        assertTrue(error(planned("sluice.policies.api.plans.pro.segments", "6"))
                .startsWith("unknown property sluice.policies.api.plans.pro.segments='6' for algorithm fixed-window;"
                        + " a plan sets its limit only"));
    }

    @Test
    void settings_planLimitOutOfRange_namesThePlansProperty() {
        assertTrue(error(planned("sluice.policies.api.plans.pro.permit-limit", "0"))
                .startsWith("invalid property sluice.policies.api.plans.pro.permit-limit='0';"));
    }

    @Test
    void settings_planWithoutAPermitLimit_namesBothProperties() {
        assertTrue(error(planned("sluice.policies.api.plans.pro.permit-limit", null,
                "sluice.policies.api.plans.pro.window", "PT2M"))
                .startsWith("missing property sluice.policies.api.plans.pro.permit-limit (or"
                        + " sluice.policies.api.permit-limit for every plan)"));
    }

    @Test
    void settings_planFromWithoutPlans_named() {
        Properties p = planned();
        p.stringPropertyNames().stream().filter(k -> k.contains(".plans.")).forEach(p::remove);
        p.setProperty("sluice.policies.api.permit-limit", "3");
        assertTrue(error(p).startsWith("invalid property sluice.policies.api.plan-from='header:X-Plan'; it applies to"
                + " a policy with plans"), error(p));
    }

    @Test
    void settings_routeCostAboveTheSmallestPlan_named() {
        assertTrue(error(planned("sluice.routes.1.cost", "4"))
                .startsWith("invalid property sluice.routes.1.cost='4'; expected a whole number between 1 and 3"));
    }

    @Test
    void builder_plansOfAnUndefinedPolicy_named() {
        Plans plans = Plans.builder().plan("free", LimitSpec.fixedWindow(2, Duration.ofMinutes(1))).defaultPlan("free")
                .build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HttpRateLimiterConfig.builder().plans("api", plans, request -> null).build());
        assertTrue(e.getMessage().contains("policy 'api', which is not defined"), e.getMessage());
    }

    /** A plan's settings are the algorithms' limit settings, no more and no fewer. */
    @Test
    void planSettings_areTheAlgorithmsLimitSettings() {
        Set<String> limitSettings = new TreeSet<>();
        PropertiesReader.ALGORITHM_KEYS.values().forEach(limitSettings::addAll);
        assertEquals(limitSettings, new TreeSet<>(PropertiesReader.settings(SluiceSettings.LimitSettings.class).keySet()));
    }

    @Test
    void planned_knownByItsLimiter_sameKeyWhateverThePlan() {
        HttpRateLimiter r = limiter(HttpRateLimiterConfig.fromProperties(planned()));
        assertFalse(r.limiter("api").planOf(r.partition("ip:192.0.2.1")).isEmpty(), "the default plan");
        assertEquals("free", r.limiter("api").planOf(r.partition("ip:192.0.2.1")).orElseThrow());
    }
}
