package dev.sluice.spring;

import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.micrometer.SluiceMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer's binder on the application's {@link MeterRegistry}: {@code sluice.decisions} and the other
 * decision meters (it is a {@link dev.sluice.limiter.DecisionListener} on every policy) and the store's
 * {@code sluice.store.*} gauges.
 */
@AutoConfiguration(after = SluiceAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnSluiceSwitch("sluice.enabled")
@ConditionalOnClass({MeterRegistry.class, SluiceMetrics.class})
public class SluiceMetricsAutoConfiguration {

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
    static SmartInitializingSingleton sluiceStoreMeters(ObjectProvider<SluiceMetrics> metrics,
            ObjectProvider<RateLimiters> limiters) {
        return () -> metrics.ifAvailable(m -> limiters.ifUnique(m::bindStore));
    }
}
