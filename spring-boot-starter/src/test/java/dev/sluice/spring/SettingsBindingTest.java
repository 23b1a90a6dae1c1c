package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.http.ClientIdentityResolver;
import dev.sluice.http.HttpRequestView;
import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.RateLimitPolicy;
import dev.sluice.limiter.LimitSpec;
import java.security.Principal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.mock.env.MockEnvironment;

/**
 * One rich configuration, read from {@link Properties} by the HTTP core and bound by Spring Boot onto the same
 * settings records, gives the same {@link HttpRateLimiterConfig}: every policy's spec, options and identity, every
 * route, the client identity, trusted proxies, headers, problem type and capacity; with Boot's own spellings too.
 */
class SettingsBindingTest {
    /** Every setting, durations in both of Boot's forms. */
    static final List<String> RICH = List.of(
            "sluice.policies.login.algorithm=sliding-log",
            "sluice.policies.login.permit-limit=5",
            "sluice.policies.login.window=1m",
            "sluice.policies.login.failure-mode=deny",
            "sluice.policies.login.decision-timeout=500ms",
            "sluice.policies.login.max-retries=3",
            "sluice.policies.login.identity=principal,address",
            "sluice.policies.api.algorithm=token-bucket",
            "sluice.policies.api.permit-limit=100",
            "sluice.policies.api.tokens-per-period=10",
            "sluice.policies.api.replenishment-period=PT1S",
            "sluice.policies.api.queue-limit=4",
            "sluice.policies.api.durability=ephemeral",
            "sluice.policies.sw.algorithm=sliding-window",
            "sluice.policies.sw.permit-limit=60",
            "sluice.policies.sw.window=PT1M",
            "sluice.policies.sw.segments=6",
            "sluice.policies.sw.shadow=true",
            "sluice.policies.fw.algorithm=fixed-window",
            "sluice.policies.fw.permit-limit=1000",
            "sluice.policies.fw.window=2h",
            "sluice.policies.sc.algorithm=sliding-counter",
            "sluice.policies.sc.permit-limit=30",
            "sluice.policies.sc.window=30s",
            "sluice.policies.sc.failure-mode=LOCAL",
            "sluice.policies.sc.fallback-replicas=3",
            "sluice.policies.g.algorithm=gcra",
            "sluice.policies.g.permit-limit=10",
            "sluice.policies.g.window=PT1S",
            "sluice.policies.g.burst=20",
            "sluice.policies.g.failure-mode=throw",
            "sluice.policies.upload.algorithm=concurrency",
            "sluice.policies.upload.permit-limit=4",
            "sluice.policies.upload.lease-duration=1m",
            "sluice.policies.upload.identity=api-key",
            "sluice.routes.1.pattern=/login",
            "sluice.routes.1.methods=POST",
            "sluice.routes.1.policy=login",
            "sluice.routes.2.pattern=/api/*",
            "sluice.routes.2.policy=api,sw",
            "sluice.routes.2.cost=2",
            "sluice.routes.export.pattern=/api/export",
            "sluice.routes.export.methods=GET,POST",
            "sluice.routes.export.policy=api",
            "sluice.routes.export.cost=10",
            "sluice.routes.up.pattern=/upload",
            "sluice.routes.up.policy=upload,g",
            "sluice.routes.f.pattern=/f/*",
            "sluice.routes.f.methods=GET",
            "sluice.routes.f.policy=fw,sc",
            "sluice.client.identity=api-key,address",
            "sluice.client.api-key-header=X-Api-Key",
            "sluice.client.trusted-proxies=10.0.0.0/8,::1",
            "sluice.client.allow-trust-all=false",
            "sluice.client.ipv6-prefix=56",
            "sluice.strict-matching=false",
            "sluice.shadow=false",
            "sluice.headers.enabled=false",
            "sluice.headers.partition-key=true",
            "sluice.headers.legacy=true",
            "sluice.problem.type=https://example.com/problems/rate-limited",
            "sluice.problem.decisions=true",
            "sluice.trace.refused-requests=7",
            "sluice.capacity.max-keys=5000",
            "sluice.capacity.policy=refuse-new-keys",
            "sluice.capacity.overflow-cells=64");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS));

    @Test
    void propertiesAndBootBinding_giveTheSameConfig() {
        HttpRateLimiterConfig read = HttpRateLimiterConfig.fromProperties(properties(RICH));
        String expected = describe(read);

        runner.withPropertyValues(RICH.toArray(String[]::new)).run(context -> {
            assertThat(context).hasNotFailed();
            HttpRateLimiterConfig bound = context.getBean(HttpRateLimiterConfig.class);
            assertThat(describe(bound)).isEqualTo(expected);
            assertThat(describe(HttpRateLimiterConfig.from(context.getBean(SluiceProperties.class))))
                    .isEqualTo(expected);
        });

        // Checked here so that the comparison above is of a configuration that holds every setting.
        assertThat(read.policies()).hasSize(7);
        assertThat(read.policies().get("login").spec()).isEqualTo(LimitSpec.slidingLog(5, Duration.ofMinutes(1)));
        assertThat(read.policies().get("sw").spec()).isEqualTo(LimitSpec.slidingWindow(60, Duration.ofMinutes(1), 6));
        assertThat(read.policies().get("login").options().decisionTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(read.routes()).hasSize(5);
        assertThat(read.capacity()).isEqualTo(dev.sluice.limiter.Capacity.maxKeys(5000).refuseNewKeys()
                .withOverflowCells(64));
        assertThat(read.ipv6Prefix()).isEqualTo(56);
        assertThat(read.headers()).isFalse();
        assertThat(read.partitionKeys()).isTrue();
        assertThat(read.problemDecisions()).isTrue();
        assertThat(read.refusalTrace()).isEqualTo(7);
    }

    /** Boot's own spellings (indexed lists, camel case, ISO and simple durations swapped) bind to the same. */
    @Test
    void bootsOwnSpellings_giveTheSameConfig() {
        String expected = describe(HttpRateLimiterConfig.fromProperties(properties(RICH)));
        List<String> boot = new ArrayList<>();
        for (String a : RICH) {
            boot.add(switch (a) {
                case "sluice.routes.export.methods=GET,POST" -> "sluice.routes.export.methods[0]=GET";
                case "sluice.routes.2.policy=api,sw" -> "sluice.routes.2.policy[0]=api";
                case "sluice.policies.login.window=1m" -> "sluice.policies.login.window=PT1M";
                case "sluice.policies.sw.window=PT1M" -> "sluice.policies.sw.window=1m";
                case "sluice.policies.api.permit-limit=100" -> "sluice.policies.api.permitLimit=100";
                case "sluice.headers.partition-key=true" -> "sluice.headers.partitionKey=true";
                case "sluice.trace.refused-requests=7" -> "sluice.trace.refusedRequests=7";
                default -> a;
            });
        }
        boot.add("sluice.routes.export.methods[1]=POST");
        boot.add("sluice.routes.2.policy[1]=sw");
        runner.withPropertyValues(boot.toArray(String[]::new)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(describe(context.getBean(HttpRateLimiterConfig.class))).isEqualTo(expected);
        });
    }

    /** A Hazelcast member's maps are bounded before the properties are bound: the same rules, the same messages. */
    @Test
    void capacityBeforeBinding_sameRulesAndMessages() {
        assertThat(SluiceProperties.capacityOf(new MockEnvironment())).isNull();
        assertThat(SluiceProperties.capacityOf(new MockEnvironment().withProperty("sluice.capacity.max-keys", "5000")
                .withProperty("sluice.capacity.policy", "refuse-new-keys")))
                .isEqualTo(dev.sluice.limiter.Capacity.maxKeys(5000).refuseNewKeys());
        for (String[] bad : new String[][] {{"policy", "lru"}, {"max-keys", "ten"}, {"max-keys", "0"}}) {
            Properties p = properties(List.of("sluice.capacity." + bad[0] + "=" + bad[1]));
            String expected = org.assertj.core.api.Assertions.catchThrowable(
                    () -> HttpRateLimiterConfig.fromProperties(p)).getMessage();
            assertThat(expected).contains("sluice.capacity." + bad[0], bad[1]);
            assertThatThrownBy(() -> SluiceProperties.capacityOf(new MockEnvironment()
                    .withProperty("sluice.capacity." + bad[0], bad[1])))
                    .hasRootCauseMessage(expected);
        }
    }

    /** Everything a config decides with, as text: equal text, equal decisions. */
    static String describe(HttpRateLimiterConfig c) {
        StringBuilder s = new StringBuilder();
        s.append(c).append('\n');
        for (RateLimitPolicy p : c.policies().values()) {
            s.append(p.name()).append(": ").append(p.spec()).append(' ').append(p.options()).append(" shadow=")
                    .append(p.shadow()).append(" identity=").append(identities(p.identity())).append('\n');
        }
        s.append("routes=").append(c.routes()).append('\n');
        s.append("identity=").append(identities(c.identityResolver())).append('\n');
        s.append("trustedProxies=").append(c.trustedProxies()).append(" problemType=").append(c.problemType())
                .append(" capacity=").append(c.capacity()).append(" overridesMatter=").append(c.overridesMatter());
        return s.toString();
    }

    /** What the resolver answers for a few requests: behind a trusted proxy with a key and a user, and bare IPv6. */
    private static List<String> identities(ClientIdentityResolver resolver) {
        if (resolver == null) {
            return null;
        }
        return List.of(String.valueOf(resolver.resolve(new Request("10.1.2.3", "203.0.113.9", "k1", "alice"))),
                String.valueOf(resolver.resolve(new Request("2001:db8:1:2:3::1", null, null, null))));
    }

    private static Properties properties(List<String> assignments) {
        Properties p = new Properties();
        for (String a : assignments) {
            p.setProperty(a.substring(0, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
        }
        return p;
    }

    private record Request(String peer, String forwardedFor, String apiKey, String user) implements HttpRequestView {
        @Override public String getMethod() { return "GET"; }
        @Override public String getPath() { return "/api/x"; }
        @Override public String getHeader(String name) {
            return name.equalsIgnoreCase("X-Forwarded-For") ? forwardedFor
                    : name.equalsIgnoreCase("X-Api-Key") ? apiKey : null;
        }
        @Override public Enumeration<String> getHeaders(String name) {
            String v = getHeader(name);
            return Collections.enumeration(v == null ? List.of() : List.of(v));
        }
        @Override public String getQueryString() { return null; }
        @Override public String getRemoteAddr() { return peer; }
        @Override public Principal getUserPrincipal() { return user == null ? null : () -> user; }
        @Override public Object unwrap() { return this; }
    }
}
