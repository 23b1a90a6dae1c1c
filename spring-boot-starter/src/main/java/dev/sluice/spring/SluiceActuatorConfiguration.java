package dev.sluice.spring;

import dev.sluice.limiter.RateLimiters;
import dev.sluice.servlet.HttpRateLimiter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The Actuator endpoint {@code ratelimits} and the health indicator {@code sluice}. */
@Configuration(proxyBeanMethods = false)
class SluiceActuatorConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class Endpoint {
        @Bean
        @ConditionalOnMissingBean
        RateLimitsEndpoint sluiceRateLimitsEndpoint(HttpRateLimiter rateLimiter, RateLimiters limiters) {
            return new RateLimitsEndpoint(rateLimiter, SluiceRateLimiters.backendOf(limiters));
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "sluiceHealthIndicator")
        SluiceHealthIndicator sluiceHealthIndicator(HttpRateLimiter rateLimiter, RateLimiters limiters) {
            return new SluiceHealthIndicator(rateLimiter, limiters);
        }
    }
}
