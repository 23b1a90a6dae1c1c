package dev.sluice.gateway;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.spring.ConditionalOnSluiceSwitch;
import dev.sluice.spring.SluiceAutoConfiguration;
import dev.sluice.spring.SluiceWebFilter;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;

/**
 * Sluice in Spring Cloud Gateway (server WebFlux): the {@code Sluice} route filter
 * ({@link SluiceGatewayFilterFactory}), and for the gateway's own {@code RequestRateLimiter} the
 * {@code sluiceRateLimiter} and {@code sluiceKeyResolver} beans (registered before the gateway's
 * configuration, which makes that filter only when a rate limiter and a key resolver exist); the
 * {@link SluicePathGuard} in front of every route; and a start-up check that builds the routes, so a route
 * naming a policy that {@code sluice.policies} does not define fails start-up.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class,
        beforeName = "org.springframework.cloud.gateway.config.GatewayAutoConfiguration")
@ConditionalOnClass(AbstractGatewayFilterFactory.class)
@ConditionalOnSluiceSwitch("sluice.enabled")
@ConditionalOnProperty(prefix = "spring.cloud.gateway.server.webflux", name = "enabled", havingValue = "true",
        matchIfMissing = true)
public class SluiceGatewayAutoConfiguration {

    /** Refuses paths a backend would read as another path than the one routes were matched on. */
    @Bean
    @ConditionalOnBean(HttpRateLimiter.class)
    @ConditionalOnMissingBean
    public SluicePathGuard sluicePathGuard(HttpRateLimiter rateLimiter) {
        return new SluicePathGuard(rateLimiter);
    }

    @Bean
    @ConditionalOnBean(HttpRateLimiter.class)
    @ConditionalOnMissingBean
    public SluiceGatewayFilterFactory sluiceGatewayFilterFactory(HttpRateLimiter rateLimiter,
            ObjectProvider<SluicePathGuard> guard, ObjectProvider<SluiceWebFilter> routesFilter) {
        return new SluiceGatewayFilterFactory(rateLimiter,
                routesFilter.getIfAvailable() != null ? guard.getIfAvailable() : null);
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

    /** Builds the routes at start-up, so a route naming an undefined policy fails it. */
    @Bean
    @ConditionalOnBean(HttpRateLimiter.class)
    static SmartInitializingSingleton sluiceGatewayRoutesCheck(ObjectProvider<HttpRateLimiter> rateLimiter,
            ObjectProvider<RouteLocator> routes, ObjectProvider<SluiceRateLimiter> requestRateLimiter,
            ObjectProvider<SluiceWebFilter> routesFilter) {
        return () -> new SluiceGatewayRoutesCheck(rateLimiter.getObject(), routes, requestRateLimiter.getIfAvailable(),
                routesFilter.getIfAvailable() != null).afterSingletonsInstantiated();
    }
}
