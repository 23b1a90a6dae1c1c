package dev.sluice.spring;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.servlet.RateLimitFilter;
import dev.sluice.http.HttpRateLimiterConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.AbstractFilterRegistrationBean;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletContextInitializer;
import org.springframework.boot.web.servlet.ServletContextInitializerBeans;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The servlet filters of {@code sluice.routes}, in a servlet web application, placed around Spring Security's chain
 * where it is present; off with {@code sluice.filter.enabled=false}.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnSluiceSwitch({"sluice.enabled", "sluice.filter.enabled"})
public class SluiceWebMvcAutoConfiguration {

    /**
     * The servlet filters, on the URL patterns of {@code sluice.filter.url-patterns}: one for every policy, or, with
     * Spring Security, one each side of its chain (see {@link SluiceFilterPlacement}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({jakarta.servlet.Filter.class, FilterRegistrationBean.class})
    static class Servlet {
        @Bean
        @ConditionalOnMissingBean
        SluiceFilterPlacement sluiceFilterPlacement(SluiceProperties properties, HttpRateLimiterConfig config,
                ListableBeanFactory beans, Environment environment) {
            Integer security = SECURITY ? SecurityChains.Servlet.order(beans, environment) : null;
            return new SluiceFilterPlacement(properties, config, security);
        }

        @Bean
        @ConditionalOnMissingBean(name = SluiceFilterPlacement.FILTER_NAME)
        FilterRegistrationBean<RateLimitFilter> sluiceRateLimitFilter(HttpRateLimiter rateLimiter,
                SluiceProperties properties, SluiceFilterPlacement placement) {
            HttpRateLimiter late = placement.split() ? rateLimiter.restrictedTo(p -> !placement.early(p)) : rateLimiter;
            return registration(SluiceFilterPlacement.FILTER_NAME, late, placement.order(), properties);
        }

        @Bean
        @ConditionalOnMissingBean(name = SluiceFilterPlacement.EARLY_FILTER_NAME)
        FilterRegistrationBean<RateLimitFilter> sluiceEarlyRateLimitFilter(HttpRateLimiter rateLimiter,
                SluiceProperties properties, SluiceFilterPlacement placement) {
            FilterRegistrationBean<RateLimitFilter> registration = registration(SluiceFilterPlacement.EARLY_FILTER_NAME,
                    rateLimiter.restrictedTo(placement::early), placement.split() ? placement.earlyOrder() : 0,
                    properties);
            registration.setEnabled(placement.split());
            return registration;
        }

        private static FilterRegistrationBean<RateLimitFilter> registration(String name, HttpRateLimiter rateLimiter,
                int order, SluiceProperties properties) {
            FilterRegistrationBean<RateLimitFilter> registration =
                    new FilterRegistrationBean<>(new RateLimitFilter(rateLimiter));
            registration.setName(name);
            registration.setOrder(order);
            registration.setUrlPatterns(properties.getFilter().getUrlPatterns());
            return registration;
        }

        /** Checks, once every bean exists, the filters in the order the server will run them. */
        @Bean
        static SmartInitializingSingleton sluiceFilterOrderCheck(ObjectProvider<SluiceFilterPlacement> placement,
                ObjectProvider<HttpRateLimiterConfig> config, ListableBeanFactory beans) {
            return () -> {
                SluiceFilterPlacement p = placement.getIfAvailable();
                if (p == null) {
                    return;
                }
                Integer security = null;
                Map<String, Integer> sluice = new LinkedHashMap<>();
                int i = 0;
                for (ServletContextInitializer initializer : new ServletContextInitializerBeans(beans)) {
                    if (initializer instanceof AbstractFilterRegistrationBean<?> r && r.isEnabled()) {
                        String name = r.getFilterName();
                        if (SluiceFilterPlacement.SECURITY_FILTER_NAME.equals(name)) {
                            security = i;
                        } else if (SluiceFilterPlacement.FILTER_NAME.equals(name)
                                || SluiceFilterPlacement.EARLY_FILTER_NAME.equals(name)) {
                            sluice.put(name, i);
                        }
                    }
                    i++;
                }
                if (security == null) {
                    return;
                }
                Map<String, Boolean> before = new LinkedHashMap<>();
                int s = security;
                sluice.forEach((name, at) -> before.put(name, at < s));
                p.check(before);
                if (SECURITY) {
                    p.checkRoutes(config.getObject(), (method, path) -> SecurityChains.Servlet.answers(beans, method, path));
                }
            };
        }

        private static final boolean SECURITY = ClassUtils.isPresent(
                "org.springframework.security.web.SecurityFilterChain", SluiceWebMvcAutoConfiguration.class.getClassLoader());
    }

    /**
     * On Tomcat, the valve that records the peer and the forwarding headers before Tomcat's own
     * {@code RemoteIpValve} rewrites them (see {@link SluicePeerValve}); first among the engine valves.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.apache.catalina.valves.ValveBase",
            "org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory"})
    static class Tomcat {
        @Bean
        static WebServerFactoryCustomizer<org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory>
                sluicePeerValveCustomizer() {
            return new PeerValveCustomizer();
        }
    }

    /** Adds {@link SluicePeerValve} before any other customizer adds its engine valves. */
    static final class PeerValveCustomizer implements
            WebServerFactoryCustomizer<org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory>, Ordered {
        @Override
        public void customize(org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory factory) {
            factory.addEngineValves(new SluicePeerValve());
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }
    }
}
