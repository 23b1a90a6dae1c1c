package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.HttpRateLimiter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * Every {@code sluice.*} switch, the {@code enabled} ones that decide whether an auto-configuration applies
 * included, reads what Spring's conversion reads as true or false, and fails start-up on anything else.
 */
final class SwitchesTest {
    private static final String[] VALID = {"sluice.policies.p.algorithm=fixed-window",
            "sluice.policies.p.permit-limit=10", "sluice.policies.p.window=PT1M", "sluice.routes.r.pattern=/api/*",
            "sluice.routes.r.policy=p"};

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS)).withPropertyValues(VALID);
    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS)).withPropertyValues(VALID);

    /** {@code yes}, {@code on} and {@code 1} turned Sluice off ({@code havingValue = "true"}). */
    @ParameterizedTest
    @ValueSource(strings = {"true", "TRUE", "yes", "Yes", "on", "ON", "1"})
    void enabled_readAsTrue_turnsSluiceOn(String value) {
        runner.withPropertyValues("sluice.enabled=" + value)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(HttpRateLimiter.class));
    }

    @ParameterizedTest
    @ValueSource(strings = {"false", "False", "no", "NO", "off", "0"})
    void enabled_readAsFalse_turnsSluiceOff(String value) {
        runner.withPropertyValues("sluice.enabled=" + value)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(HttpRateLimiter.class));
    }

    /** {@code maybe} and {@code flase} turned Sluice off without a word. */
    @ParameterizedTest
    @ValueSource(strings = {"maybe", "flase", "2", "enabled"})
    void enabled_neither_failsStartUpNamingSettingValueAndAccepted(String value) {
        runner.withPropertyValues("sluice.enabled=" + value).run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure())).contains("invalid property sluice.enabled='" + value
                    + "'; expected true or false (also yes/no, on/off, 1/0; any case)");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"yes", "on", "1"})
    void filterEnabled_readAsTrue_registersTheFilter(String value) {
        web.withPropertyValues("sluice.filter.enabled=" + value)
                .run(context -> assertThat(context).hasNotFailed().hasBean(SluiceFilterPlacement.FILTER_NAME));
    }

    @ParameterizedTest
    @ValueSource(strings = {"no", "off", "0"})
    void filterEnabled_readAsFalse_registersNoFilter(String value) {
        web.withPropertyValues("sluice.filter.enabled=" + value)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SluiceFilterPlacement.FILTER_NAME)
                        .hasSingleBean(HttpRateLimiter.class));
    }

    @ParameterizedTest
    @ValueSource(strings = {"sluice.filter.enabled=maybe", "sluice.filter.override-security-order=flase"})
    void starterSwitch_neither_failsStartUp(String assignment) {
        String property = assignment.substring(0, assignment.indexOf('='));
        String value = assignment.substring(assignment.indexOf('=') + 1);
        web.withPropertyValues(assignment).run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure())).contains("invalid property " + property + "='" + value
                    + "'; expected true or false (also yes/no, on/off, 1/0; any case)");
        });
    }

    private static List<String> messages(Throwable failure) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.add(t.getMessage());
        }
        return messages;
    }
}
