package dev.sluice.spring;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.limiter.RateLimiters;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.hazelcast.autoconfigure.HazelcastConfigCustomizer;
import org.springframework.boot.hazelcast.autoconfigure.HazelcastConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * The Hazelcast backend, when the context has a {@link HazelcastInstance}: Boot's (from
 * {@code hazelcast.yaml}, {@code spring.hazelcast.config}, or a {@link Config}/{@link ClientConfig} bean) or
 * the application's. Sluice's serialization factory and maps are applied to the configuration before the
 * instance starts: through Boot's {@link HazelcastConfigCustomizer} for a member configured from a file, to
 * {@link Config} and {@link ClientConfig} beans as they are created, and to the client configuration of Boot's
 * {@link HazelcastConnectionDetails}. An instance the application starts
 * itself must have been configured with {@link SluiceHazelcast#configure}; {@link HazelcastRateLimiters#create}
 * says so at start-up if it was not.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({HazelcastInstance.class, HazelcastRateLimiters.class})
@Import(SluiceHazelcastConfiguration.BootCustomizer.class)
class SluiceHazelcastConfiguration {
    static final String MAP_NAME_PROPERTY = "sluice.hazelcast.map-name";

    @Bean
    @ConditionalOnMissingBean(RateLimiters.class)
    @ConditionalOnSingleCandidate(HazelcastInstance.class)
    SluiceRateLimiters sluiceRateLimiters(HazelcastInstance hazelcast, SluiceProperties properties) {
        String backend = hazelcast.getLocalEndpoint() instanceof Member ? SluiceRateLimiters.HAZELCAST_MEMBER
                : SluiceRateLimiters.HAZELCAST_CLIENT;
        return new SluiceRateLimiters(HazelcastRateLimiters.create(hazelcast, properties.getHazelcast().getMapName(),
                properties.getKeyPrefix()), backend);
    }

    /** Configures {@link Config} and {@link ClientConfig} beans before Boot starts an instance from them. */
    @Bean
    static BeanPostProcessor sluiceHazelcastConfigPostProcessor(Environment environment) {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
                if (bean instanceof Config config) {
                    configureMember(config, environment);
                } else if (bean instanceof ClientConfig config) {
                    SluiceHazelcast.configure(config);
                }
                return bean;
            }
        };
    }

    /**
     * Sluice's maps on a member config: bounded by {@code sluice.capacity.*} when any is set (whatever eviction
     * the config had), else by {@link dev.sluice.limiter.Capacity#defaults()} unless the config gives the maps an
     * eviction of its own.
     */
    static void configureMember(Config config, Environment environment) {
        dev.sluice.limiter.Capacity capacity = SluiceProperties.capacityOf(environment);
        if (capacity == null) {
            SluiceHazelcast.configure(config, mapName(environment));
        } else {
            SluiceHazelcast.configure(config, mapName(environment), capacity);
        }
    }

    static String mapName(Environment environment) {
        return environment.getProperty(MAP_NAME_PROPERTY, SluiceHazelcast.DEFAULT_MAP_NAME);
    }

    /**
     * Boot's hooks: its customizer for a member it configures from a file, and its connection details, from
     * which it makes every client (from a {@link ClientConfig} bean or a client configuration file).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HazelcastConfigCustomizer.class)
    static class BootCustomizer {
        @Bean
        HazelcastConfigCustomizer sluiceHazelcastConfigCustomizer(Environment environment) {
            return config -> configureMember(config, environment);
        }

        @Bean
        static BeanPostProcessor sluiceHazelcastConnectionDetailsPostProcessor() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
                    if (bean instanceof HazelcastConnectionDetails details) {
                        return (HazelcastConnectionDetails) () -> SluiceHazelcast.configure(details.getClientConfig());
                    }
                    return bean;
                }
            };
        }
    }
}
