package dev.sluice.spring;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.RateLimitFilterConfig;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * The core of Sluice from {@code sluice.*} properties, in any application (web or not): the policies and routes
 * ({@link RateLimitFilterConfig}, validated at start-up) and the {@link HttpRateLimiter} that the servlet and
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
    public RateLimitFilterConfig sluiceFilterConfig(SluiceProperties properties,
            ObjectProvider<DecisionListener> listeners, Environment environment) {
        try {
            properties.getPrefilter().modeName(); // validated with the rest, at start-up
            RateLimitFilterConfig.Builder builder =
                    RateLimitFilterConfig.builder().settings(properties.settings(), SluiceProperties.written(environment));
            listeners.orderedStream().forEach(builder::listener);
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new InvalidSluiceConfigurationException(e.getMessage(), e);
        }
    }

    /** Decides requests for the filters, {@link RateLimited} methods and the Actuator endpoint alike. */
    @Bean
    @ConditionalOnMissingBean
    public HttpRateLimiter sluiceHttpRateLimiter(RateLimiters limiters, RateLimitFilterConfig config,
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
