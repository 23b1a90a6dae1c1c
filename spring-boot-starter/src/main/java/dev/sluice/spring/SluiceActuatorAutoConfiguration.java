package dev.sluice.spring;

import dev.sluice.limiter.RateLimiters;
import dev.sluice.http.HttpRateLimiter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

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
        RateLimitsEndpoint sluiceRateLimitsEndpoint(HttpRateLimiter rateLimiter, RateLimiters limiters,
                ObjectProvider<ProtectionReport> report) {
            return new RateLimitsEndpoint(rateLimiter, SluiceRateLimiters.backendOf(limiters), report.getIfAvailable());
        }

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        RateLimitRefusalsEndpoint sluiceRateLimitRefusalsEndpoint(HttpRateLimiter rateLimiter) {
            return new RateLimitRefusalsEndpoint(rateLimiter);
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
