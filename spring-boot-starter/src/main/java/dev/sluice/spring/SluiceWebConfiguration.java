package dev.sluice.spring;

import dev.sluice.servlet.HttpRateLimiter;
import dev.sluice.servlet.RateLimitFilter;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;

/** The HTTP filters, {@link RateLimited} methods and the answer to their refusals. */
@Configuration(proxyBeanMethods = false)
class SluiceWebConfiguration {

    /** Proxies beans with {@link RateLimited} methods. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static RateLimitedPostProcessor sluiceRateLimitedPostProcessor() {
        return new RateLimitedPostProcessor();
    }

    /** The servlet filter, on the URL patterns of {@code sluice.filter.url-patterns}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass({jakarta.servlet.Filter.class, FilterRegistrationBean.class})
    @ConditionalOnProperty(prefix = "sluice.filter", name = "enabled", havingValue = "true", matchIfMissing = true)
    static class Servlet {
        @Bean
        @ConditionalOnMissingBean(name = "sluiceRateLimitFilter")
        FilterRegistrationBean<RateLimitFilter> sluiceRateLimitFilter(HttpRateLimiter rateLimiter,
                SluiceProperties properties) {
            FilterRegistrationBean<RateLimitFilter> registration =
                    new FilterRegistrationBean<>(new RateLimitFilter(rateLimiter));
            registration.setName("sluiceRateLimitFilter");
            registration.setOrder(properties.getFilter().getOrder());
            registration.setUrlPatterns(properties.getFilter().getUrlPatterns());
            return registration;
        }
    }

    /**
     * On Tomcat, the valve that records the peer and the forwarding headers before Tomcat's own
     * {@code RemoteIpValve} rewrites them (see {@link SluicePeerValve}); first among the engine valves.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = {"org.apache.catalina.valves.ValveBase",
            "org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory"})
    @ConditionalOnProperty(prefix = "sluice.filter", name = "enabled", havingValue = "true", matchIfMissing = true)
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

    /** The WebFlux filter. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(name = {"org.springframework.web.server.WebFilter", "reactor.core.publisher.Mono"})
    @ConditionalOnProperty(prefix = "sluice.filter", name = "enabled", havingValue = "true", matchIfMissing = true)
    static class Reactive {
        @Bean
        @ConditionalOnMissingBean
        SluiceWebFilter sluiceWebFilter(HttpRateLimiter rateLimiter, SluiceProperties properties) {
            return new SluiceWebFilter(rateLimiter, properties.getFilter().getOrder());
        }
    }

    /** Answers refusals of {@link RateLimited} methods in MVC and WebFlux controllers. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication
    @ConditionalOnClass(name = "org.springframework.web.ErrorResponseException")
    static class Refusals {
        @Bean
        @ConditionalOnMissingBean
        RateLimitExceptionHandler sluiceRateLimitExceptionHandler() {
            return new RateLimitExceptionHandler();
        }
    }
}
