package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.store.DecisionStore;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.io.StringReader;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Failure mode {@code local} at the HTTP edge: the settings that ask for it, and the answers while the store is away
 * (grants marked degraded, the share's refusal a 429 with its retry-after, a degraded one still).
 */
final class LocalFallbackEdgeTest {
    /** A store that never answers: every call fails at once, as a closed connection does. */
    private final DecisionStore away = requests -> CompletableFuture.failedFuture(
            new IllegalMonitorStateException("store away (test)"));
    private final RateLimiters limiters = RateLimiterRuntime.create(away);

    @AfterEach
    void close() {
        limiters.close();
    }

    private static HttpRateLimiterConfig read(String properties) throws Exception {
        Properties p = new Properties();
        p.load(new StringReader(properties));
        return HttpRateLimiterConfig.fromProperties(p);
    }

    private static final String LOGIN = """
            sluice.policies.login.algorithm=sliding-log
            sluice.policies.login.permit-limit=7
            sluice.policies.login.window=60500ms
            sluice.routes.1.pattern=/login
            sluice.routes.1.policy=login
            """;

    @Test
    void properties_failureModeLocalWithReplicas_anyCase() throws Exception {
        LimiterOptions options = read(LOGIN + "sluice.policies.login.failure-mode=LOCAL\n"
                + "sluice.policies.login.fallback-replicas=3\n").policies().get("login").options();
        assertEquals(FailureMode.LOCAL, options.failureMode());
        assertEquals(3, options.fallbackReplicas().getAsInt());
        assertEquals(FailureMode.LOCAL, read(LOGIN + "sluice.policies.login.failure-mode=local\n").policies()
                .get("login").options().failureMode());
    }

    @Test
    void properties_badReplicas_errorNamesTheProperty() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> read(LOGIN + "sluice.policies.login.fallback-replicas=0\n"));
        assertTrue(zero.getMessage().contains("sluice.policies.login.fallback-replicas"), zero.getMessage());
        IllegalArgumentException word = assertThrows(IllegalArgumentException.class,
                () -> read(LOGIN + "sluice.policies.login.fallback-replicas=three\n"));
        assertTrue(word.getMessage().contains("sluice.policies.login.fallback-replicas"), word.getMessage());
        IllegalArgumentException mode = assertThrows(IllegalArgumentException.class,
                () -> read(LOGIN + "sluice.policies.login.failure-mode=locally\n"));
        assertTrue(mode.getMessage().contains("sluice.policies.login.failure-mode") && mode.getMessage().contains("local"),
                mode.getMessage());
    }

    @Test
    void typedSettings_fallbackReplicas() {
        SluiceSettings.PolicySettings login = new SluiceSettings.PolicySettings();
        login.setAlgorithm("fixed-window");
        login.setPermitLimit(10L);
        login.setWindow(Duration.ofMillis(60_500));
        login.setFailureMode(FailureMode.LOCAL);
        login.setFallbackReplicas(4);
        SluiceSettings settings = new SluiceSettings();
        settings.setPolicies(Map.of("login", login));
        assertEquals(4, HttpRateLimiterConfig.from(settings).policies().get("login").options().fallbackReplicas()
                .getAsInt());
    }

    @Test
    void storeThatCannotCountReplicas_withoutTheSetting_namesIt() throws Exception {
        HttpRateLimiterConfig config = read(LOGIN + "sluice.policies.login.failure-mode=local\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new HttpRateLimiter(limiters, config));
        assertTrue(e.getMessage().contains("fallback-replicas"), e.getMessage());
    }

    @Test
    void storeAway_shareDecides_grantsDegraded_refusalIs429() throws Exception {
        HttpRateLimiter edge = new HttpRateLimiter(limiters, read(LOGIN
                + "sluice.policies.login.failure-mode=local\nsluice.policies.login.fallback-replicas=3\n"));
        try {
            for (int i = 0; i < 2; i++) {
                HttpDecision granted = edge.decide(Requests.of("GET", "/login"));
                assertTrue(granted.proceeds(), "7 over 3 replicas is 2 each");
                assertEquals("true", header(granted, "RateLimit-Degraded"));
            }
            HttpDecision refused = edge.decide(Requests.of("GET", "/login"));
            assertFalse(refused.proceeds());
            assertEquals(429, refused.status(), "the share refused on quota, not for want of a decision");
            assertEquals("true", header(refused, "RateLimit-Degraded"));
            assertTrue(Long.parseLong(header(refused, "Retry-After")) >= 1);
        } finally {
            edge.close();
        }
    }

    private static String header(HttpDecision d, String name) {
        return d.headers().stream().filter(h -> h.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue)
                .findFirst().orElse(null);
    }
}
