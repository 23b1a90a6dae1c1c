package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.ResponseCost;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/** The settlement page's YAML binds, and settles as the page says. */
class SettlementDocsTest {

    private static List<String> yamlBlocks() throws Exception {
        String page = Files.readString(Path.of("../docs/settlement.md"));
        List<String> blocks = new ArrayList<>();
        for (int at = page.indexOf("```yaml\n"); at >= 0; at = page.indexOf("```yaml\n", at + 1)) {
            int start = at + "```yaml\n".length();
            blocks.add(page.substring(start, page.indexOf("```\n", start)));
        }
        return blocks;
    }

    private static void bind(String yaml, java.util.function.Consumer<HttpRateLimiterConfig> check) throws Exception {
        List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("page",
                new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS))
                .withInitializer(c -> sources.forEach(c.getEnvironment().getPropertySources()::addFirst))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    check.accept(context.getBean(HttpRateLimiterConfig.class));
                });
    }

    @Test
    void loginLimitThatCountsOnlyFailures_binds() throws Exception {
        bind(yamlBlocks().get(0), config -> assertThat(config.responseCosts())
                .containsEntry("login", new ResponseCost(Set.of(401, 403), null)));
    }

    @Test
    void costFromAResponseHeader_binds() throws Exception {
        bind(yamlBlocks().get(1), config -> assertThat(config.responseCosts())
                .containsEntry("llm-tokens", ResponseCost.fromHeader("X-Sluice-Cost")));
    }

    @Test
    void countStatusesOnAConcurrencyPolicy_isRefusedNamingTheProperty() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS))
                .withPropertyValues("sluice.policies.jobs.algorithm=concurrency", "sluice.policies.jobs.permit-limit=2",
                        "sluice.policies.jobs.count-statuses=401")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("invalid property sluice.policies.jobs.count-statuses='401'; a concurrency policy"));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS))
                .withPropertyValues("sluice.policies.login.algorithm=fixed-window", "sluice.policies.login.permit-limit=2",
                        "sluice.policies.login.window=1m", "sluice.policies.login.count-statuses=4O1")
                .run(context -> assertThat(context).getFailure().rootCause()
                        .hasMessageContaining("invalid property sluice.policies.login.count-statuses='4O1'; expected HTTP statuses"));
    }
}
