package dev.sluice.test.spring;

import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.spring.SluiceBackendAutoConfiguration;
import dev.sluice.spring.SluiceProperties;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * What {@link AutoConfigureSluiceTest} imports: the manual clock, the in-process store on it as the primary
 * {@link RateLimiters} (registered before the starter's backends, each of which then stands back), and the
 * pre-filter switched off.
 */
@AutoConfiguration(before = SluiceBackendAutoConfiguration.class)
public class SluiceTestAutoConfiguration {
    private static final String DEFAULT_KEY_PREFIX = "sluice";

    /** The clock the store decides on; a test injects it and advances it. */
    @Bean
    public ManualClock sluiceTestClock() {
        return new ManualClock();
    }

    @Bean
    ResettableStore sluiceTestStore(ManualClock sluiceTestClock, ObjectProvider<SluiceProperties> properties) {
        SluiceProperties p = properties.getIfAvailable();
        return new ResettableStore(sluiceTestClock, p == null ? DEFAULT_KEY_PREFIX : p.getKeyPrefix());
    }

    /** The store as the application sees it; the store bean closes it, not this one. */
    @Bean(destroyMethod = "")
    @Primary
    public RateLimiters sluiceTestRateLimiters(ResettableStore sluiceTestStore) {
        return sluiceTestStore.rateLimiters();
    }

    /** The pre-filter off: its local refusals expire by the machine's monotonic time, not by the manual clock. */
    @Bean
    static BeanPostProcessor sluiceTestPrefilterOff() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
                if (bean instanceof SluiceProperties properties) {
                    properties.getPrefilter().setMode("off");
                }
                return bean;
            }
        };
    }
}
