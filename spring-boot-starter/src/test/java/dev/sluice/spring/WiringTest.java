package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.Keys;
import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.servlet.RateLimitFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/** How the servlet filter is registered, and the pre-filter put in front of the policies, from properties. */
class WiringTest {
    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS))
            .withClassLoader(new FilteredClassLoader("com.hazelcast", "dev.sluice.hazelcast"))
            .withPropertyValues("sluice.policies.p.algorithm=fixed-window", "sluice.policies.p.permit-limit=2",
                    "sluice.policies.p.window=PT1H");

    @Test
    void servletFilter_registeredWithTheOrderAndUrlPatternsOfTheProperties() {
        runner.withPropertyValues("sluice.filter.order=-50", "sluice.filter.url-patterns=/api/*,/login").run(context -> {
            @SuppressWarnings("unchecked")
            FilterRegistrationBean<RateLimitFilter> registration =
                    context.getBean("sluiceRateLimitFilter", FilterRegistrationBean.class);
            assertThat(registration.getOrder()).isEqualTo(-50);
            assertThat(registration.getUrlPatterns()).containsExactly("/api/*", "/login");
            assertThat(registration.getFilter().config()).isSameAs(context.getBean(HttpRateLimiter.class).config());
        });
    }

    @Test
    void filterDisabled_noRegistration_butMethodsAndEndpointStillWork() {
        runner.withPropertyValues("sluice.filter.enabled=false", "management.endpoints.web.exposure.include=ratelimits")
                .run(context -> {
            assertThat(context).doesNotHaveBean(FilterRegistrationBean.class);
            assertThat(context).hasSingleBean(HttpRateLimiter.class);
            assertThat(context).hasSingleBean(RateLimitsEndpoint.class);
        });
    }

    @Test
    void actuatorBeans_followBootsEndpointAndHealthConditions() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class); // not exposed
            assertThat(context).doesNotHaveBean(RateLimitRefusalsEndpoint.class);
            assertThat(context).hasSingleBean(SluiceHealthIndicator.class);
        });
        runner.withPropertyValues("management.endpoints.web.exposure.include=ratelimits",
                "management.health.sluice.enabled=false").run(context -> {
            assertThat(context).hasSingleBean(RateLimitsEndpoint.class);
            assertThat(context).doesNotHaveBean(RateLimitRefusalsEndpoint.class); // exposed apart
            assertThat(context).doesNotHaveBean(SluiceHealthIndicator.class);
        });
        runner.withPropertyValues("management.endpoints.web.exposure.include=ratelimitrefusals").run(context -> {
            assertThat(context).hasSingleBean(RateLimitRefusalsEndpoint.class);
            assertThat(context).doesNotHaveBean(RateLimitsEndpoint.class);
        });
    }

    @Test
    void eachConcern_excludedAlone_leavesTheOthers() throws Exception {
        // spring.autoconfigure.exclude works on what the imports file registers: one class per concern.
        try (java.io.InputStream in = getClass().getResourceAsStream(
                "/META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
            assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().toList())
                    .containsExactlyElementsOf(java.util.Arrays.stream(Sluice.AUTO_CONFIGURATIONS).map(Class::getName).toList());
        }
        without(SluiceWebMvcAutoConfiguration.class).run(context -> {
            assertThat(context).doesNotHaveBean(FilterRegistrationBean.class);
            assertThat(context).hasSingleBean(RateLimitedPostProcessor.class);
            assertThat(context).hasSingleBean(SluiceHealthIndicator.class);
        });
        without(SluiceRateLimitedAutoConfiguration.class, SluiceActuatorAutoConfiguration.class).run(context -> {
            assertThat(context).hasBean("sluiceRateLimitFilter");
            assertThat(context).doesNotHaveBean(RateLimitedPostProcessor.class);
            assertThat(context).doesNotHaveBean(RateLimitExceptionHandler.class);
            assertThat(context).doesNotHaveBean(SluiceHealthIndicator.class);
        });
    }

    private static WebApplicationContextRunner without(Class<?>... excluded) {
        java.util.List<Class<?>> kept = new java.util.ArrayList<>(java.util.List.of(Sluice.AUTO_CONFIGURATIONS));
        kept.removeAll(java.util.List.of(excluded));
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(kept.toArray(Class<?>[]::new)))
                .withClassLoader(new FilteredClassLoader("com.hazelcast", "dev.sluice.hazelcast"))
                .withPropertyValues("sluice.policies.p.algorithm=fixed-window", "sluice.policies.p.permit-limit=2",
                        "sluice.policies.p.window=PT1H");
    }

    @Test
    void prefilterRefusalCache_wrapsEachPolicy_decisionsStayExact() {
        runner.withPropertyValues("sluice.prefilter.mode=refusal-cache").run(context -> {
            HttpRateLimiter rateLimiter = context.getBean(HttpRateLimiter.class);
            assertThat(rateLimiter.limiter("p").getClass().getPackageName()).isEqualTo("dev.sluice.prefilter");
            String partition = Keys.digest("someone");
            assertThat(rateLimiter.limiter("p").tryAcquire(partition, 1).isAcquired()).isTrue();
            assertThat(rateLimiter.limiter("p").tryAcquire(partition, 1).isAcquired()).isTrue();
            assertThat(rateLimiter.limiter("p").tryAcquire(partition, 1).isAcquired()).isFalse();
            assertThat(rateLimiter.limiter("p").tryAcquire(partition, 1).isAcquired()).isFalse(); // refused locally
        });
    }

    @Test
    void bootDurations_acceptedBesideIso8601() {
        runner.withPropertyValues("sluice.policies.p.window=90m", "sluice.policies.q.algorithm=token-bucket",
                "sluice.policies.q.permit-limit=10", "sluice.policies.q.tokens-per-period=1",
                "sluice.policies.q.replenishment-period=500ms", "sluice.policies.q.decision-timeout=PT0.25S")
                .run(context -> {
            HttpRateLimiterConfig config = context.getBean(HttpRateLimiter.class).config();
            assertThat(config.policies().get("p").spec()).isEqualTo(
                    dev.sluice.limiter.LimitSpec.fixedWindow(2, java.time.Duration.ofMinutes(90)));
            assertThat(config.policies().get("q").spec()).isEqualTo(
                    dev.sluice.limiter.LimitSpec.tokenBucket(10, 1, java.time.Duration.ofMillis(500)));
        });
    }

    @Test
    void prefilterOff_byDefault() {
        runner.run(context -> assertThat(context.getBean(HttpRateLimiter.class).limiter("p").getClass()
                .getPackageName()).isNotEqualTo("dev.sluice.prefilter"));
    }
}
