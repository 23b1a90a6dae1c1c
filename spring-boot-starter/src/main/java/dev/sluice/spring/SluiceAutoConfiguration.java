package dev.sluice.spring;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.micrometer.SluiceMetrics;
import dev.sluice.servlet.HttpRateLimiter;
import dev.sluice.servlet.RateLimitFilterConfig;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Wires Sluice from {@code sluice.*} properties: the policies and routes ({@link RateLimitFilterConfig},
 * validated at start-up), the store ({@link RateLimiters}: a Hazelcast instance of the context, else a
 * JCache {@code CacheManager}, else in-process with a warning; an application's own bean wins), the
 * {@link HttpRateLimiter} that the servlet and WebFlux filters, {@link RateLimited} methods, the Actuator
 * endpoint and the health indicator share, and Micrometer metrics when there is a {@link MeterRegistry}.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
        "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnProperty(prefix = "sluice", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(SluiceProperties.class)
// Backends in order of preference; each registers only if no RateLimiters exists yet. They are imports, not
// nested classes, because nested classes would be registered before the imports.
@Import({SluiceHazelcastConfiguration.class, SluiceJCacheConfiguration.class,
        SluiceInProcessConfiguration.class, SluiceWebConfiguration.class,
        SluiceActuatorConfiguration.class})
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
            ObjectProvider<DecisionListener> listeners) {
        try {
            properties.getPrefilter().modeName(); // validated with the rest, at start-up
            RateLimitFilterConfig.Builder builder =
                    RateLimitFilterConfig.builder().properties(properties.toFilterProperties());
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

    /** Micrometer's binder, on the application's registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {
        @Bean
        @ConditionalOnBean(MeterRegistry.class)
        @ConditionalOnMissingBean
        SluiceMetrics sluiceMetrics(MeterRegistry registry) {
            BuiltWith.check("micrometer", MeterRegistry.class.getPackage().getImplementationVersion());
            return new SluiceMetrics(registry);
        }

        /**
         * The store's meters ({@code sluice.store.*}: keys, bound, evictions, capacity refusals, overflow decisions),
         * bound once every bean exists: the store's limiters hear the binder as a listener, so it cannot wait for them.
         */
        @Bean
        static org.springframework.beans.factory.SmartInitializingSingleton sluiceStoreMeters(
                ObjectProvider<SluiceMetrics> metrics, ObjectProvider<RateLimiters> limiters) {
            return () -> metrics.ifAvailable(m -> limiters.ifUnique(m::bindStore));
        }
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
