package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.LimitSpec;
import java.util.Properties;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An algorithm added in one place is a setting: limiter-api's test-only {@code session-window} algorithm, put on the
 * class path by this module's {@code new-algorithm} test execution only, is written in properties like a real one,
 * its parameters' names, bounds and defaults all coming from its description.
 */
final class NewAlgorithmSettingsTest {
    /** Elsewhere (a -Dtest that names this class in the default execution) the algorithm is not registered. */
    @BeforeEach
    void onlyInTheNewAlgorithmExecution() {
        assumeTrue(Boolean.getBoolean("sluice.new-algorithm"), "run by the new-algorithm execution");
    }

    private static Properties policy(String... settings) {
        Properties p = new Properties();
        p.setProperty("sluice.policies.sessions.algorithm", "session-window");
        for (String s : settings) {
            p.setProperty("sluice.policies.sessions." + s.substring(0, s.indexOf('=')), s.substring(s.indexOf('=') + 1));
        }
        p.setProperty("sluice.routes.all.pattern", "/*");
        p.setProperty("sluice.routes.all.policy", "sessions");
        return p;
    }

    @Test
    void testAlgorithm_isReadFromProperties_withItsDefault() {
        LimitSpec spec = HttpRateLimiterConfig.fromProperties(policy("permit-limit=3")).policies().get("sessions").spec();
        assertEquals("session-window", spec.algorithm());
        assertEquals(3, spec.limit());
        assertEquals(60_000L, AlgorithmDescription.of(spec).values(spec)[1], "the window's default, from its description");
    }

    @Test
    void testAlgorithm_boundsComeFromItsDescription_andTheMessageNamesTheProperty() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HttpRateLimiterConfig.fromProperties(policy("permit-limit=5000", "window=PT2S")));
        assertTrue(e.getMessage().contains("sluice.policies.sessions.permit-limit"), e.getMessage());
        assertTrue(e.getMessage().contains("1000"), e.getMessage());
    }

    @Test
    void testAlgorithm_unknownParameter_isNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HttpRateLimiterConfig.fromProperties(policy("permit-limit=3", "segments=4")));
        assertTrue(e.getMessage().contains("sluice.policies.sessions.segments"), e.getMessage());
    }
}
