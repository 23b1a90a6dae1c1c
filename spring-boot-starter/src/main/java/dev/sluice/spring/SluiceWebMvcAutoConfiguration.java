package dev.sluice.spring;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.servlet.RateLimitFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/** The servlet filter of {@code sluice.routes}, in a servlet web application; off with {@code sluice.filter.enabled=false}. */
@AutoConfiguration(after = SluiceAutoConfiguration.class)
@ConditionalOnProperty(prefix = "sluice", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "sluice.filter", name = "enabled", havingValue = "true", matchIfMissing = true)
public class SluiceWebMvcAutoConfiguration {

    /** The servlet filter, on the URL patterns of {@code sluice.filter.url-patterns}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({jakarta.servlet.Filter.class, FilterRegistrationBean.class})
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
