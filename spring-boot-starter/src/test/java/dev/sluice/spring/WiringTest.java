package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.Keys;
import dev.sluice.servlet.HttpRateLimiter;
import dev.sluice.servlet.RateLimitFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/** How the servlet filter is registered, and the pre-filter put in front of the policies, from properties. */
class WiringTest {
    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SluiceAutoConfiguration.class))
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
        runner.withPropertyValues("sluice.filter.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(FilterRegistrationBean.class);
            assertThat(context).hasSingleBean(HttpRateLimiter.class);
            assertThat(context).hasSingleBean(RateLimitsEndpoint.class);
        });
    }

    @Test
    void prefilterRefusalCache_wrapsEachPolicy_decisionsStayExact() {
        runner.withPropertyValues("sluice.prefilter.mode=refusal-cache").run(context -> {
            HttpRateLimiter rateLimiter = context.getBean(HttpRateLimiter.class);
            assertThat(rateLimiter.limiter("p").getClass().getPackageName()).isEqualTo("dev.sluice.prefilter");
            String partition = Keys.sha256("someone");
            assertThat(rateLimiter.limiter("p").tryAcquire(partition, 1).isAcquired()).isTrue();
            assertThat(rateLimiter.limiter("p").tryAcquire(partition, 1).isAcquired()).isTrue();
            assertThat(rateLimiter.limiter("p").tryAcquire(partition, 1).isAcquired()).isFalse();
            assertThat(rateLimiter.limiter("p").tryAcquire(partition, 1).isAcquired()).isFalse(); // refused locally
        });
    }

    @Test
    void prefilterOff_byDefault() {
        runner.run(context -> assertThat(context.getBean(HttpRateLimiter.class).limiter("p").getClass()
                .getPackageName()).isNotEqualTo("dev.sluice.prefilter"));
    }
}
