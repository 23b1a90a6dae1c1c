package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.LimitSpec;
import java.nio.charset.StandardCharsets;
import java.time.DayOfWeek;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * Calendar quotas in a Boot application's YAML, as docs/calendar-quotas.md writes them: bound by Spring to the specs
 * the Java API builds; a bad value fails start-up naming the property and the value.
 */
class CalendarQuotaBindingTest {
    private static final String YAML = """
            sluice:
              policies:
                monthly:
                  algorithm: calendar-window
                  permit-limit: 10000
                  period: month
                  zone: Europe/Paris
                weekly:
                  algorithm: calendar-window
                  permit-limit: 500
                  period: week
                  first-day-of-week: sunday
              routes:
                api:
                  pattern: /api/*
                  policy: monthly, weekly
            """;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS));

    private ApplicationContextRunner withYaml(String yaml) throws Exception {
        List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("calendar",
                new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)));
        return runner.withInitializer(c -> sources.forEach(c.getEnvironment().getPropertySources()::addFirst));
    }

    @Test
    void yaml_bindsTheSpecsTheJavaApiBuilds() throws Exception {
        withYaml(YAML).run(context -> {
            assertThat(context).hasNotFailed();
            HttpRateLimiterConfig config = context.getBean(HttpRateLimiterConfig.class);
            assertThat(config.policies().get("monthly").spec())
                    .isEqualTo(LimitSpec.calendarWindow(10_000, CalendarPeriod.MONTH, ZoneId.of("Europe/Paris")));
            assertThat(config.policies().get("weekly").spec()).isEqualTo(LimitSpec.calendarWindow(500,
                    CalendarPeriod.WEEK, java.time.ZoneOffset.UTC, DayOfWeek.SUNDAY));
        });
    }

    @Test
    void badZone_failsStartUp_namingThePropertyAndTheValue() throws Exception {
        withYaml(YAML.replace("zone: Europe/Paris", "zone: Europe/Pariss")).run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure()))
                    .contains("sluice.policies.monthly.zone", "Europe/Pariss", "region id of the tz database");
        });
    }

    @Test
    void badPeriod_failsStartUp_namingThePropertyAndTheValue() throws Exception {
        withYaml(YAML.replace("period: month", "period: fortnight")).run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure())).contains("sluice.policies.monthly.period", "fortnight");
        });
    }

    /** The messages of a failure and its causes, one a line. */
    private static String messages(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }
}
