package dev.sluice.spring;

import dev.sluice.limiter.RateLimiters;
import dev.sluice.http.HttpRateLimiter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The Actuator endpoints {@code ratelimits} and {@code ratelimitrefusals} (each when available: enabled and
 * exposed) and the health indicator
 * {@code sluice} (unless {@code management.health.sluice.enabled=false}).
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnSluiceSwitch("sluice.enabled")
public class SluiceActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.boot.actuate.endpoint.annotation.Endpoint",
            "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint"})
    static class Endpoint {
        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        @Conditional(ResetDisabled.class)
        RateLimitsEndpoint sluiceRateLimitsEndpoint(HttpRateLimiter rateLimiter, RateLimiters limiters,
                ObjectProvider<ProtectionReport> report) {
            return new RateLimitsEndpoint(rateLimiter, SluiceRateLimiters.backendOf(limiters), report.getIfAvailable());
        }

        /** The same endpoint with its reset operation: a bean of its own type, which is where Actuator finds it. */
        @Bean
        @ConditionalOnMissingBean(RateLimitsEndpoint.class)
        @ConditionalOnAvailableEndpoint(endpoint = RateLimitsEndpoint.class)
        @Conditional(ResetEnabled.class)
        ResettableRateLimitsEndpoint sluiceResettableRateLimitsEndpoint(HttpRateLimiter rateLimiter,
                RateLimiters limiters, ObjectProvider<ProtectionReport> report) {
            return new ResettableRateLimitsEndpoint(rateLimiter, SluiceRateLimiters.backendOf(limiters),
                    report.getIfAvailable());
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        RateLimitRefusalsEndpoint sluiceRateLimitRefusalsEndpoint(HttpRateLimiter rateLimiter) {
            return new RateLimitRefusalsEndpoint(rateLimiter);
        }
    }

    /** {@code sluice.reset-enabled}, read as every switch is read, and off when unset. */
    static class ResetEnabled extends SpringBootCondition {
        static final String PROPERTY = "sluice.reset-enabled";

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            String value = context.getEnvironment().getProperty(PROPERTY);
            boolean on = value != null && SluiceSwitchCondition.parse(PROPERTY, value);
            return on == expected() ? ConditionOutcome.match(PROPERTY + "=" + value)
                    : ConditionOutcome.noMatch(PROPERTY + "=" + value);
        }

        boolean expected() {
            return true;
        }
    }

    /** The other side of {@link ResetEnabled}. */
    static final class ResetDisabled extends ResetEnabled {
        @Override
        boolean expected() {
            return false;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.boot.health.contributor.HealthIndicator",
            "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator"})
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "sluiceHealthIndicator")
        @ConditionalOnEnabledHealthIndicator("sluice")
        SluiceHealthIndicator sluiceHealthIndicator(HttpRateLimiter rateLimiter, RateLimiters limiters) {
            return new SluiceHealthIndicator(rateLimiter, limiters);
        }
    }
}
