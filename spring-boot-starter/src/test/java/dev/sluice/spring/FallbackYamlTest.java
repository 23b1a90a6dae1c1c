package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.LimiterOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * The YAML of the Spring Boot page's "When the store is away" binds to failure mode local with its replicas, which the
 * ratelimits endpoint shows.
 */
class FallbackYamlTest {

    @Test
    void springBootPage_fallbackYaml_binds() throws Exception {
        String page = Files.readString(Path.of("../docs/spring-boot.md"));
        int section = page.indexOf("\n## When the store is away\n");
        assertThat(section).isPositive();
        int start = page.indexOf("```yaml\n", section) + "```yaml\n".length();
        String yaml = page.substring(start, page.indexOf("```\n", start));
        List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("page",
                new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS))
                .withPropertyValues("management.endpoints.web.exposure.include=ratelimits")
                .withInitializer(c -> sources.forEach(c.getEnvironment().getPropertySources()::addFirst))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LimiterOptions options = context.getBean(HttpRateLimiterConfig.class).policies().get("per-client")
                            .options();
                    assertThat(options.failureMode()).isEqualTo(FailureMode.LOCAL);
                    assertThat(options.fallbackReplicas()).hasValue(3);
                    assertThat(context.getBean(RateLimitsEndpoint.class).policy("per-client"))
                            .containsEntry("failureMode", "local").containsEntry("fallbackReplicas", 3);
                });
    }
}
