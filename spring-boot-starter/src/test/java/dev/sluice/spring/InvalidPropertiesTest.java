package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.http.HttpRateLimiterConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Every invalid {@code sluice.*} property fails start-up, with the message of the servlet filter's own
 * properties reader for the same setting: one set of rules, naming the property, the value and what is allowed.
 */
class InvalidPropertiesTest {
    private static final List<String> VALID = List.of("sluice.policies.p.algorithm=fixed-window",
            "sluice.policies.p.permit-limit=10", "sluice.policies.p.window=PT1M", "sluice.routes.r.pattern=/api/*",
            "sluice.routes.r.policy=p");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS));

    static Stream<String> invalid() {
        return Stream.of(
                "sluice.policies.p.permit-limit=0",
                "sluice.policies.p.permit-limit=ten",
                "sluice.policies.p.algorithm=leaky-bucket",
                "sluice.policies.p.window=1min",
                "sluice.policies.p.window=-PT1M",
                "sluice.policies.p.window=60", // Boot alone would read milliseconds
                "sluice.policies.p.decision-timeout=500",
                "sluice.policies.p.algorithm=FIXED_WINDOW",
                "sluice.policies.p.segments=6",
                "sluice.policies.p.failure-mode=open",
                "sluice.policies.p.failure-mode=locally",
                "sluice.policies.p.fallback-replicas=0",
                "sluice.policies.p.fallback-replicas=three",
                "sluice.policies.p.durability=fast",
                "sluice.policies.p.decision-timeout=PT10M",
                "sluice.policies.p.queue-limit=-1",
                "sluice.policies.p.max-retries=11",
                "sluice.policies.p.identity=cookie",
                "sluice.policies.p.shadow=maybe",
                "sluice.routes.r.policy=nope",
                "sluice.routes.r.cost=11",
                "sluice.routes.r.pattern=api",
                "sluice.routes.r.methods=G*T",
                "sluice.client.ipv6-prefix=129",
                "sluice.client.identity=api-key",
                "sluice.client.trusted-proxies=proxy.example.com",
                "sluice.client.api-key-header=X Key",
                "sluice.shadow=maybe",
                "sluice.strict-matching=flase",
                "sluice.headers.enabled=2",
                "sluice.problem.type=not a uri",
                "sluice.problem.decisions=sometimes",
                "sluice.trace.refused-requests=-1",
                "sluice.trace.refused-requests=100001");
    }

    @ParameterizedTest
    @MethodSource("invalid")
    void invalidProperty_failsStartUp_withTheReadersMessage(String assignment) {
        List<String> assignments = new ArrayList<>(VALID);
        assignments.add(assignment);
        String expected = readerMessage(assignments);
        String key = assignment.substring(0, assignment.indexOf('='));
        String value = assignment.substring(assignment.indexOf('=') + 1);
        assertThat(expected).contains(key, value);

        runner.withPropertyValues(assignments.toArray(String[]::new)).run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure())).contains(expected);
        });
    }

    @Test
    void unknownProperty_failsStartUp_namingIt() {
        runner.withPropertyValues(VALID.toArray(String[]::new)).withPropertyValues("sluice.policies.p.windw=PT1M")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(String.join("\n", messages(context.getStartupFailure())))
                            .contains("sluice.policies.p.windw");
                });
    }

    /** Boot said only "Binding to target [Bindable@…] failed" and listed the key, naming no valid one. */
    @Test
    void unknownProperty_namesTheNearestValidOne() {
        runner.withPropertyValues(VALID.toArray(String[]::new)).withPropertyValues("sluice.policies.p.windw=PT1M",
                "sluice.filter.ordr=5").run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(messages(context.getStartupFailure())).anySatisfy(m -> assertThat(m)
                            .contains("unknown property sluice.policies.p.windw; did you mean sluice.policies.p.window?")
                            .contains("unknown property sluice.filter.ordr; did you mean sluice.filter.order?"));
                });
        runner.withPropertyValues(VALID.toArray(String[]::new)).withPropertyValues("sluice.clinet.identity=address")
                .run(context -> assertThat(messages(context.getStartupFailure())).anySatisfy(m -> assertThat(m)
                        .contains("unknown property sluice.clinet.identity; did you mean sluice.client?")));
    }

    @Test
    void invalidPrefilterMode_failsStartUp() {
        runner.withPropertyValues(VALID.toArray(String[]::new)).withPropertyValues("sluice.prefilter.mode=sometimes")
                .run(context -> assertThat(messages(context.getStartupFailure())).contains(
                        "invalid property sluice.prefilter.mode='sometimes'; expected one of off, refusal-cache, allowance"));
    }

    @Test
    void rateLimitedNamingAnUnknownPolicy_failsStartUp() {
        runner.withPropertyValues(VALID.toArray(String[]::new)).withUserConfiguration(BadUse.class)
                .run(context -> assertThat(String.join("\n", messages(context.getStartupFailure()))).contains(
                        "@RateLimited of " + BadUse.Service.class.getName() + ".call (bean 'service') names policy"
                                + " 'missing', which is not defined; defined policies (sluice.policies.<name>): [p]"));
    }

    @Test
    void rateLimitedTakingMorePermitsThanTheLimit_failsStartUp() {
        runner.withPropertyValues(VALID.toArray(String[]::new)).withUserConfiguration(TooMany.class)
                .run(context -> assertThat(String.join("\n", messages(context.getStartupFailure()))).contains(
                        "takes permits=11; expected a whole number between 1 and 10 (the limit of policy 'p')"));
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void application_failsToStart_withBootsReportNamingTheProperty(CapturedOutput output) {
        SpringApplicationBuilder app = new SpringApplicationBuilder(Plain.class).web(WebApplicationType.NONE);
        assertThatThrownBy(() -> app.run("--sluice.policies.p.algorithm=gcra", "--sluice.policies.p.permit-limit=10",
                "--sluice.policies.p.window=PT1S", "--sluice.policies.p.burst=0"))
                .hasRootCauseMessage("invalid property sluice.policies.p.burst='0'; expected a whole number between 1"
                        + " and 1000000000");
        assertThat(output).contains("APPLICATION FAILED TO START", "Description:",
                "invalid property sluice.policies.p.burst='0'", "Action:", "Correct the sluice.* configuration");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration(exclude = HazelcastAutoConfiguration.class)
    static class Plain {}

    @Test
    void validProperties_start() {
        runner.withPropertyValues(VALID.toArray(String[]::new)).run(context -> assertThat(context).hasNotFailed());
    }

    /** What the servlet filter's reader says of the same properties. */
    private static String readerMessage(List<String> assignments) {
        Properties p = new Properties();
        for (String a : assignments) {
            p.setProperty(a.substring(0, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
        }
        List<String> captured = new ArrayList<>();
        assertThatThrownBy(() -> HttpRateLimiterConfig.fromProperties(p)).isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> captured.add(e.getMessage()));
        return captured.get(0);
    }

    private static List<String> messages(Throwable t) {
        List<String> messages = new ArrayList<>();
        for (Throwable c = t; c != null; c = c.getCause()) {
            messages.add(c.getMessage());
        }
        return messages;
    }

    @Configuration(proxyBeanMethods = false)
    static class BadUse {
        static class Service {
            @RateLimited(policy = "missing")
            public String call() {
                return "called";
            }
        }

        @Bean
        Service service() {
            return new Service();
        }
    }

    /** A method no proxy can intercept would be validated and never enforced: start-up fails instead. */
    @Test
    void rateLimitedOnAFinalMethod_failsStartUp() {
        runner.withPropertyValues(VALID.toArray(String[]::new)).withUserConfiguration(Unproxyable.class)
                .run(context -> assertThat(String.join("\n", messages(context.getStartupFailure()))).contains(
                        "@RateLimited of " + Unproxyable.Service.class.getName() + ".call (bean 'service') is on a"
                                + " private, final or static method, which no proxy can intercept"));
    }

    @Configuration(proxyBeanMethods = false)
    static class Unproxyable {
        static class Service {
            @RateLimited(policy = "p")
            public final String call() {
                return "called";
            }
        }

        @Bean
        Service service() {
            return new Service();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TooMany {
        static class Service {
            @RateLimited(policy = "p", permits = 11)
            public String call() {
                return "called";
            }
        }

        @Bean
        Service service() {
            return new Service();
        }
    }
}
