package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The start-up report of what Sluice protects: every route with its methods and policies, each policy's identity,
 * place, store and failure mode, the uses outside the routes, and a warning for a policy nothing uses.
 */
@ExtendWith(OutputCaptureExtension.class)
final class ProtectionReportTest {
    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS))
            .withUserConfiguration(Reports.class)
            .withPropertyValues("sluice.policies.login-limit.algorithm=fixed-window",
                    "sluice.policies.login-limit.permit-limit=5", "sluice.policies.login-limit.window=PT1M",
                    "sluice.policies.per-user.algorithm=sliding-log", "sluice.policies.per-user.permit-limit=20",
                    "sluice.policies.per-user.window=PT1M", "sluice.policies.per-user.identity=principal",
                    "sluice.policies.per-user.failure-mode=deny",
                    "sluice.policies.reports.algorithm=fixed-window", "sluice.policies.reports.permit-limit=3",
                    "sluice.policies.reports.window=PT1H",
                    "sluice.policies.edge.algorithm=fixed-window", "sluice.policies.edge.permit-limit=100",
                    "sluice.policies.edge.window=PT1S",
                    "sluice.policies.tight.algorithm=fixed-window", "sluice.policies.tight.permit-limit=1",
                    "sluice.policies.tight.window=PT1S",
                    "sluice.routes.login.pattern=/login", "sluice.routes.login.methods=POST",
                    "sluice.routes.login.policy=login-limit",
                    "sluice.routes.api.pattern=/api/*", "sluice.routes.api.policy=per-user",
                    "spring.cloud.gateway.server.webflux.routes[0].id=orders",
                    "spring.cloud.gateway.server.webflux.routes[0].filters[0]=Sluice=edge");

    /** Nothing said that 'tight' limited nothing, nor what each route was protected by. */
    @Test
    void report_listsRoutesPoliciesAndUses_andWarnsOfAnUnusedPolicy(CapturedOutput output) {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            ProtectionReport report = context.getBean(ProtectionReport.class);
            assertThat(report.warnings()).containsExactly("Sluice: policy 'tight' is configured, but no route"
                    + " (sluice.routes), gateway filter or @RateLimited method uses it, so it limits nothing");
            assertThat(report.uses()).containsOnlyKeys("reports", "edge");
            assertThat(report.uses().get("reports")).containsExactly("@RateLimited "
                    + Reports.Service.class.getName() + ".run (one budget for every caller)");
            assertThat(report.uses().get("edge"))
                    .containsExactly("gateway filter spring.cloud.gateway.server.webflux.routes[0].filters[0]");
            List<Map<String, Object>> routes = report.routes();
            assertThat(routes).extracting(r -> r.get("pattern")).containsExactly("/login", "/api/*");
            assertThat(routes.get(0).get("methods")).isEqualTo(List.of("POST"));
            @SuppressWarnings("unchecked")
            Map<String, Object> perUser = ((List<Map<String, Object>>) routes.get(1).get("policies")).get(0);
            assertThat(perUser).containsEntry("name", "per-user").containsEntry("identity", List.of("principal"))
                    .containsEntry("runs", "filter order 0").containsEntry("backend", "in-process")
                    .containsEntry("failureMode", "deny");

            context.publishEvent(new ApplicationReadyEvent(new SpringApplication(), new String[0], context,
                    Duration.ZERO));
            assertThat(output).contains("Sluice protection (store: in-process)\n  POST /login\n    login-limit: ")
                    .contains("\n  * /api/*\n    per-user: ")
                    .contains("identity principal, filter order 0, failure mode deny")
                    .contains("\n  @RateLimited " + Reports.Service.class.getName() + ".run (one budget for every caller)"
                            + "\n    reports: FixedWindow[permitLimit=3, windowMillis=3600000], failure mode allow\n")
                    .contains("\n  gateway filter spring.cloud.gateway.server.webflux.routes[0].filters[0]\n    edge: "
                            + "FixedWindow[permitLimit=100, windowMillis=1000], identity address, failure mode allow\n")
                    .contains("WARN").contains("policy 'tight' is configured, but no route");
        });
    }

    /** Bug: a policy named by {@code args[sluice-rate-limiter.policy]} was reported as limiting nothing. */
    @Test
    void requestRateLimiterRoutes_inEachSpelling_useTheirPolicies() {
        runner.withPropertyValues(
                "spring.cloud.gateway.server.webflux.routes[1].filters[0].name=RequestRateLimiter",
                "spring.cloud.gateway.server.webflux.routes[1].filters[0].args[sluice-rate-limiter.policy]=tight, reports",
                "spring.cloud.gateway.server.webflux.routes[2].filters[0].name=RequestRateLimiter",
                "spring.cloud.gateway.server.webflux.routes[2].filters[0].args.sluice-rate-limiter.policy=edge")
                .run(context -> {
                    ProtectionReport report = context.getBean(ProtectionReport.class);
                    assertThat(report.warnings()).isEmpty();
                    assertThat(report.uses().get("tight"))
                            .containsExactly("gateway filter spring.cloud.gateway.server.webflux.routes[1].filters[0]");
                    assertThat(report.uses().get("edge")).contains(
                            "gateway filter spring.cloud.gateway.server.webflux.routes[2].filters[0]");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Reports {
        @Bean
        Service service() {
            return new Service();
        }

        static class Service {
            @RateLimited(policy = "reports")
            public String run() {
                return "report";
            }
        }
    }
}
