package dev.sluice.spring;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.HttpRateLimiterConfig;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

/**
 * The core of Sluice from {@code sluice.*} properties, in any application (web or not): the policies and routes
 * ({@link HttpRateLimiterConfig}, validated at start-up) and the {@link HttpRateLimiter} that the servlet and
 * WebFlux filters, {@link RateLimited} methods, the Actuator endpoint and the health indicator share. Every
 * other concern is an auto-configuration of its own, each excludable with {@code spring.autoconfigure.exclude}:
 * the store ({@link SluiceBackendAutoConfiguration}), the filters ({@link SluiceWebMvcAutoConfiguration},
 * {@link SluiceWebFluxAutoConfiguration}), {@link SluiceRateLimitedAutoConfiguration},
 * {@link SluiceMetricsAutoConfiguration} and {@link SluiceActuatorAutoConfiguration}.
 */
@AutoConfiguration(after = SluiceBackendAutoConfiguration.class)
@ConditionalOnSluiceSwitch("sluice.enabled")
@EnableConfigurationProperties(SluiceProperties.class)
@Import(SluiceBinding.Advisor.class)
public class SluiceAutoConfiguration {
    /**
     * The policies and routes of {@code sluice.*}, with every {@link DecisionListener} bean (such as the
     * Micrometer binder) on every policy.
     *
     * @throws InvalidSluiceConfigurationException naming the property, its value and what is allowed
     */
    @Bean
    @ConditionalOnMissingBean
    public HttpRateLimiterConfig sluiceFilterConfig(SluiceProperties properties,
            ObjectProvider<DecisionListener> listeners, Environment environment,
            org.springframework.beans.factory.ListableBeanFactory beans) {
        try {
            properties.getPrefilter().modeName(); // validated with the rest, at start-up
            HttpRateLimiterConfig.Builder builder = HttpRateLimiterConfig.builder().planSource(new SluicePlanSource(beans))
                    .settings(properties, SluiceProperties.written(environment));
            listeners.orderedStream().forEach(builder::listener);
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new InvalidSluiceConfigurationException(e.getMessage(), e);
        }
    }

    /** Decides requests for the filters, {@link RateLimited} methods and the Actuator endpoint alike. */
    @Bean
    @ConditionalOnMissingBean
    public HttpRateLimiter sluiceHttpRateLimiter(RateLimiters limiters, HttpRateLimiterConfig config,
            SluiceProperties properties) {
        String mode = properties.getPrefilter().modeName();
        RateLimiters store = limiters;
        if (mode != null) {
            if (!PrefilterSupport.PRESENT) {
                throw new InvalidSluiceConfigurationException("invalid property sluice.prefilter.mode='"
                        + properties.getPrefilter().getMode() + "'; the pre-filter needs dev.sluice:local-prefilter"
                        + " on the classpath (or set it to off)", null);
            }
            store = new PrefilteredRateLimiters(limiters, mode);
        }
        return new HttpRateLimiter(store, config);
    }

    /**
     * What Sluice protects, with the policies Spring Cloud Gateway routes in properties name; logged when the
     * application is ready ({@link #sluiceProtectionReportLogger}).
     */
    @Bean
    @ConditionalOnMissingBean
    public ProtectionReport sluiceProtectionReport(HttpRateLimiter rateLimiter, RateLimiters limiters,
            SluiceProperties properties, ObjectProvider<SluiceFilterPlacement> placement, Environment environment) {
        ProtectionReport report = new ProtectionReport(rateLimiter, SluiceRateLimiters.backendOf(limiters),
                SluiceFilterPlacement.identities(properties, rateLimiter.config()), policy -> {
                    SluiceFilterPlacement p = placement.getIfAvailable();
                    return p == null ? null : p.place(policy);
                });
        if (environment instanceof ConfigurableEnvironment configurable) {
            report.recordGatewayRoutes(configurable);
        }
        return report;
    }

    /** Logs the protection report as one block, and a warning for each policy nothing uses. */
    @Bean
    static ApplicationListener<ApplicationReadyEvent> sluiceProtectionReportLogger(
            ObjectProvider<ProtectionReport> report) {
        return event -> report.ifAvailable(r -> {
            LOG.info(r.text());
            r.warnings().forEach(LOG::warn);
        });
    }

    private static final org.apache.commons.logging.Log LOG =
            org.apache.commons.logging.LogFactory.getLog(ProtectionReport.class);

    /** Whether local-prefilter (and so Caffeine) is on the classpath. */
    static final class PrefilterSupport {
        static final boolean PRESENT = isPresent("dev.sluice.prefilter.LocalPrefilter");

        private PrefilterSupport() {}

        private static boolean isPresent(String className) {
            try {
                Class.forName(className, false, SluiceAutoConfiguration.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }
    }
}
