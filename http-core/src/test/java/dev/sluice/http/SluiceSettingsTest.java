package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.http.SluiceSettings.PolicySettings;
import dev.sluice.http.SluiceSettings.RouteSettings;
import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.LimitSpec;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The typed settings: built in code, they give what their properties give, and are held to the same rules. */
final class SluiceSettingsTest {

    private static PolicySettings fixedWindow(long limit, Duration window) {
        PolicySettings p = new PolicySettings();
        p.setAlgorithm("fixed-window");
        p.setPermitLimit(limit);
        p.setWindow(window);
        p.setFailureMode(FailureMode.DENY);
        return p;
    }

    private static SluiceSettings settings(PolicySettings login) {
        RouteSettings route = new RouteSettings();
        route.setPattern("/login");
        route.setMethods(List.of("POST"));
        route.setPolicy(List.of("login"));
        route.setCost(2L);
        SluiceSettings settings = new SluiceSettings();
        settings.setPolicies(Map.of("login", login));
        settings.setRoutes(Map.of("1", route));
        return settings;
    }

    @Test
    void settingsInCode_giveWhatTheirPropertiesGive() throws Exception {
        Properties p = new Properties();
        p.load(new StringReader("""
                sluice.policies.login.algorithm=fixed-window
                sluice.policies.login.permit-limit=10
                sluice.policies.login.window=1m
                sluice.policies.login.failure-mode=deny
                sluice.routes.1.pattern=/login
                sluice.routes.1.methods=POST
                sluice.routes.1.policy=login
                sluice.routes.1.cost=2
                """));
        HttpRateLimiterConfig read = HttpRateLimiterConfig.fromProperties(p);
        HttpRateLimiterConfig built = HttpRateLimiterConfig.from(settings(fixedWindow(10, Duration.ofMinutes(1))));
        assertEquals(LimitSpec.fixedWindow(10, Duration.ofMinutes(1)), built.policies().get("login").spec());
        assertEquals(read.policies().get("login").spec(), built.policies().get("login").spec());
        assertEquals(read.policies().get("login").options().toString(), built.policies().get("login").options().toString());
        assertEquals(read.routes(), built.routes());
        assertEquals(read.toString(), built.toString());
        assertEquals(HttpRateLimiterConfig.builder().build().toString(),
                HttpRateLimiterConfig.from(PropertiesReader.read(new Properties())).toString());
    }

    @Test
    void typedValues_heldToTheReadersRules_namingTheProperty() {
        assertEquals("invalid property sluice.policies.login.permit-limit='0'; expected a whole number between 1"
                        + " and 1000000000",
                assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.from(
                        settings(fixedWindow(0, Duration.ofMinutes(1))))).getMessage());
        assertEquals("invalid property sluice.policies.login.window='-PT1M'; expected "
                        + SettingText.DURATION_EXPECTED,
                assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.from(
                        settings(fixedWindow(10, Duration.ofMinutes(-1))))).getMessage());
        // As written, when the source can say.
        assertEquals("invalid property sluice.policies.login.permit-limit='00'; expected a whole number between 1"
                        + " and 1000000000",
                assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.builder()
                        .settings(settings(fixedWindow(0, Duration.ofMinutes(1))),
                                k -> k.endsWith("permit-limit") ? "00" : null)
                        .build()).getMessage());
        PolicySettings withBurst = fixedWindow(10, Duration.ofMinutes(1));
        withBurst.setBurst(5L);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.from(settings(withBurst)))
                .getMessage().startsWith("unknown property sluice.policies.login.burst='5' for algorithm fixed-window;"));
    }

    @Test
    void checkWritten_refusesWhatTheReaderRefuses() {
        assertEquals("invalid property sluice.shadow='maybe'; expected true or false (also yes/no, on/off, 1/0;"
                + " any case)", assertThrows(IllegalArgumentException.class,
                        () -> SluiceSettings.checkWritten("sluice.shadow", "maybe")).getMessage());
        assertDoesNotThrow(() -> SluiceSettings.checkWritten("sluice.shadow", "yes"));
        assertEquals("invalid property sluice.policies.p.window='60'; expected " + SettingText.DURATION_EXPECTED,
                assertThrows(IllegalArgumentException.class,
                        () -> SluiceSettings.checkWritten("sluice.policies.p.window", "60")).getMessage());
        assertDoesNotThrow(() -> SluiceSettings.checkWritten("sluice.policies.p.window", "1m"));
        assertDoesNotThrow(() -> SluiceSettings.checkWritten("sluice.policies.p.window", "PT1M"));
        assertDoesNotThrow(() -> SluiceSettings.checkWritten("sluice.filter.order", "x")); // not the model's
    }

    /**
     * Every algorithm a policy can name is read from its description: each parameter is a setting of the model, of
     * the type the parameter takes, with a range for a count; so a new algorithm needs no change here unless it
     * brings a setting the model does not have, and then this fails naming it.
     */
    @Test
    void everyAlgorithmsParameters_areSettingsOfTheModel() {
        Map<String, PropertiesReader.Setting> policy = PropertiesReader.settings(PolicySettings.class);
        for (AlgorithmDescription d : AlgorithmDescription.all()) {
            if (d.kind() == AlgorithmDescription.Kind.COMPOSITE) {
                continue;
            }
            assertTrue(PropertiesReader.ALGORITHMS.contains(d.name()), d.name());
            for (AlgorithmDescription.Parameter p : d.parameters()) {
                PropertiesReader.Setting setting = policy.get(p.setting());
                assertNotNull(setting, d.name() + " " + p.name() + ": no setting " + p.setting());
                Class<?> type = setting.getter().getReturnType();
                // A choice is its enum, or text; a zone is text its parameter reads.
                assertTrue(p.isDuration() ? type == Duration.class : p.isCount() ? type == Long.class || type == Integer.class
                        : p.unit() == AlgorithmDescription.Unit.CHOICE
                                ? type == String.class || p.choices().get(0).getDeclaringClass() == type
                                : type == String.class, p.setting() + " is " + type);
                assertTrue(!p.isCount() || SettingText.RANGES.containsKey(p.setting()), p.setting());
            }
        }
        Set<String> all = new TreeSet<>(policy.keySet());
        all.addAll(PropertiesReader.settings(RouteSettings.class).keySet());
        all.addAll(PropertiesReader.settings(SluiceSettings.ClientSettings.class).keySet());
        all.addAll(PropertiesReader.settings(SluiceSettings.CapacitySettings.class).keySet());
        all.addAll(PropertiesReader.settings(SluiceSettings.TraceSettings.class).keySet());
        assertTrue(all.containsAll(SettingText.RANGES.keySet()), SettingText.RANGES.keySet().toString());
    }
}
