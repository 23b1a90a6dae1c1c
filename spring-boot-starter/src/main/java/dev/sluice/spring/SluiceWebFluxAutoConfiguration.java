package dev.sluice.spring;

import dev.sluice.http.HttpRateLimiter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/** The WebFlux filter of {@code sluice.routes}, in a reactive web application; off with {@code sluice.filter.enabled=false}. */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnProperty(prefix = "sluice", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(name = {"org.springframework.web.server.WebFilter", "reactor.core.publisher.Mono"})
@ConditionalOnProperty(prefix = "sluice.filter", name = "enabled", havingValue = "true", matchIfMissing = true)
public class SluiceWebFluxAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    SluiceWebFilter sluiceWebFilter(HttpRateLimiter rateLimiter, SluiceProperties properties) {
        return new SluiceWebFilter(rateLimiter, properties.getFilter().getOrder());
    }
}
