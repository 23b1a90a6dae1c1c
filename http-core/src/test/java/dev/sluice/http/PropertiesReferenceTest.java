package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The module README's table of {@code sluice.*} properties is the reader's: the same names, examples it accepts. */
final class PropertiesReferenceTest {
    private static final Pattern ROW = Pattern.compile("^\\| `(sluice\\.[^`]+)` \\|.*\\| `([^`]*)` \\|$");

    private static Map<String, String> table() throws Exception {
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(Path.of("README.md"))) {
            Matcher m = ROW.matcher(line);
            if (m.matches()) {
                rows.put(m.group(1), m.group(2));
            }
        }
        return rows;
    }

    @Test
    void table_namesEveryPropertyTheReaderKnows() throws Exception {
        Set<String> known = new TreeSet<>(PropertiesReader.TOP_LEVEL);
        PropertiesReader.COMMON_POLICY_KEYS.forEach(k -> known.add("sluice.policies.<name>."
                + (k.equals("plans") ? "plans.<plan>.<setting>" : k)));
        PropertiesReader.ALGORITHM_KEYS.values().forEach(keys -> keys.forEach(k -> known.add("sluice.policies.<name>." + k)));
        PropertiesReader.ROUTE_KEYS.forEach(k -> known.add("sluice.routes.<id>." + k));
        assertEquals(known, new TreeSet<>(table().keySet()));
    }

    /** Each example, on top of a minimal valid configuration that uses the setting, is accepted. */
    @Test
    void table_everyExampleIsAccepted() throws Exception {
        for (Map.Entry<String, String> row : table().entrySet()) {
            String property = row.getKey();
            Properties p = new Properties();
            String setting = property.substring(property.lastIndexOf('.') + 1);
            String algorithm = switch (setting) {
                case "segments" -> "sliding-window";
                case "tokens-per-period", "replenishment-period" -> "token-bucket";
                case "burst" -> "gcra";
                case "lease-duration" -> "concurrency";
                case "period", "zone", "first-day-of-week" -> "calendar-window";
                default -> row.getValue().equals("sliding-log") ? "sliding-log" : "fixed-window";
            };
            p.setProperty("sluice.policies.login.algorithm", algorithm);
            p.setProperty("sluice.policies.login.permit-limit", "10");
            switch (algorithm) {
                case "sliding-window" -> {
                    p.setProperty("sluice.policies.login.window", "PT1M");
                    p.setProperty("sluice.policies.login.segments", "6");
                }
                case "token-bucket" -> {
                    p.setProperty("sluice.policies.login.tokens-per-period", "5");
                    p.setProperty("sluice.policies.login.replenishment-period", "PT10S");
                }
                case "gcra" -> {
                    p.setProperty("sluice.policies.login.window", "PT1M");
                    p.setProperty("sluice.policies.login.burst", "5");
                }
                case "concurrency" -> { }
                case "calendar-window" -> p.setProperty("sluice.policies.login.period", "week");
                default -> p.setProperty("sluice.policies.login.window", "PT1M");
            }
            p.setProperty("sluice.routes.1.pattern", "/api/login");
            p.setProperty("sluice.routes.1.policy", "login");
            if (property.contains("plan")) {
                p.setProperty("sluice.policies.login.plan-from", "header:X-Plan");
                p.setProperty("sluice.policies.login.plans.free.permit-limit", "5");
                if (!property.endsWith("unknown-plan")) {
                    p.setProperty("sluice.policies.login.default-plan", "free");
                }
            }
            p.setProperty(property.replace("<name>", "login").replace("<id>", "1").replace("<plan>", "free")
                    .replace("<setting>", "permit-limit"), row.getValue());
            assertDoesNotThrow(() -> HttpRateLimiterConfig.fromProperties(p), property + " = " + row.getValue());
        }
    }
}
