package dev.sluice.spring;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.HttpRateLimiterConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;
import org.springframework.web.server.WebFilter;

/**
 * The WebFlux filters of {@code sluice.routes}, in a reactive web application, placed around Spring Security's
 * chain where it is present (see {@link SluiceFilterPlacement}); off with {@code sluice.filter.enabled=false}.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class,
        afterName = "org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(name = {"org.springframework.web.server.WebFilter", "reactor.core.publisher.Mono"})
@ConditionalOnSluiceSwitch({"sluice.enabled", "sluice.filter.enabled"})
public class SluiceWebFluxAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    SluiceFilterPlacement sluiceFilterPlacement(SluiceProperties properties, HttpRateLimiterConfig config,
            ListableBeanFactory beans) {
        return new SluiceFilterPlacement(properties, config, SECURITY ? SecurityChains.Reactive.order(beans) : null);
    }

    /** Every policy, or, with Spring Security, those keyed on the principal, after its chain. */
    @Bean
    @ConditionalOnMissingBean(name = "sluiceWebFilter")
    SluiceWebFilter sluiceWebFilter(HttpRateLimiter rateLimiter, SluiceFilterPlacement placement) {
        return new SluiceWebFilter(placement.split() ? rateLimiter.restrictedTo(p -> !placement.early(p)) : rateLimiter,
                placement.order());
    }

    /** With Spring Security, the policies keyed on the request (address, header, global), ahead of its chain. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBean(type = "org.springframework.security.web.server.WebFilterChainProxy")
    static class Early {
        @Bean
        @ConditionalOnMissingBean(name = "sluiceEarlyWebFilter")
        SluiceWebFilter sluiceEarlyWebFilter(HttpRateLimiter rateLimiter, SluiceFilterPlacement placement) {
            return new SluiceWebFilter(rateLimiter.restrictedTo(placement::early),
                    placement.split() ? placement.earlyOrder() : placement.order(), placement.split());
        }
    }

    /** Checks, once every bean exists, the web filters in the order WebFlux will run them. */
    @Bean
    static SmartInitializingSingleton sluiceWebFilterOrderCheck(ObjectProvider<SluiceFilterPlacement> placement,
            ObjectProvider<HttpRateLimiterConfig> config, ListableBeanFactory beans) {
        return () -> {
            SluiceFilterPlacement p = placement.getIfAvailable();
            if (p == null || !SECURITY) {
                return;
            }
            List<WebFilter> filters = beans.getBeanProvider(WebFilter.class).orderedStream().toList();
            int security = -1;
            for (int i = 0; i < filters.size(); i++) {
                if (filters.get(i) instanceof org.springframework.security.web.server.WebFilterChainProxy) {
                    security = i;
                }
            }
            if (security < 0) {
                return;
            }
            Map<String, Boolean> before = new LinkedHashMap<>();
            for (String name : List.of("sluiceWebFilter", "sluiceEarlyWebFilter")) {
                if (beans.containsBean(name) && beans.getBean(name) instanceof SluiceWebFilter f && f.active()) {
                    before.put(name.equals("sluiceWebFilter") ? SluiceFilterPlacement.FILTER_NAME
                            : SluiceFilterPlacement.EARLY_FILTER_NAME, filters.indexOf(f) < security);
                }
            }
            p.check(before);
            p.checkRoutes(config.getObject(), (method, path) -> SecurityChains.Reactive.answers(beans, method, path));
        };
    }

    private static final boolean SECURITY = ClassUtils.isPresent(
            "org.springframework.security.web.server.WebFilterChainProxy",
            SluiceWebFluxAutoConfiguration.class.getClassLoader());
}
