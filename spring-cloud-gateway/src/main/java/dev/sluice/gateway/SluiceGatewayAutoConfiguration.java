package dev.sluice.gateway;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.spring.ConditionalOnSluiceSwitch;
import dev.sluice.spring.SluiceAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;

/**
 * Sluice in Spring Cloud Gateway (server WebFlux): the {@code Sluice} route filter
 * ({@link SluiceGatewayFilterFactory}), and for the gateway's own {@code RequestRateLimiter} the
 * {@code sluiceRateLimiter} and {@code sluiceKeyResolver} beans (registered before the gateway's
 * configuration, which makes that filter only when a rate limiter and a key resolver exist).
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class,
        beforeName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration")
@ConditionalOnClass(AbstractGatewayFilterFactory.class)
@ConditionalOnSluiceSwitch("sluice.enabled")
@ConditionalOnProperty(prefix = "spring.cloud.gateway.server.webflux", name = "enabled", havingValue = "true",
        matchIfMissing = true)
public class SluiceGatewayAutoConfiguration {

    @Bean
    @ConditionalOnBean(HttpRateLimiter.class)
    @ConditionalOnMissingBean
    public SluiceGatewayFilterFactory sluiceGatewayFilterFactory(HttpRateLimiter rateLimiter) {
        return new SluiceGatewayFilterFactory(rateLimiter);
    }

    @Bean
    @ConditionalOnBean(HttpRateLimiter.class)
    @ConditionalOnMissingBean
    public SluiceRateLimiter sluiceRateLimiter(HttpRateLimiter rateLimiter, ConfigurationService configurationService) {
        return new SluiceRateLimiter(rateLimiter, configurationService);
    }

    @Bean
    @ConditionalOnBean(HttpRateLimiter.class)
    @ConditionalOnMissingBean(name = "sluiceKeyResolver")
    public SluiceKeyResolver sluiceKeyResolver(HttpRateLimiter rateLimiter) {
        return new SluiceKeyResolver(rateLimiter);
    }
}
