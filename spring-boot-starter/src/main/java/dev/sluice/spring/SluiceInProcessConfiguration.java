package dev.sluice.spring;

import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The backend when the context has no other: this process alone, said at start-up. */
@Configuration(proxyBeanMethods = false)
class SluiceInProcessConfiguration {
    private static final Log LOG = LogFactory.getLog(SluiceAutoConfiguration.class);

    static final String WARNING = "Sluice: no HazelcastInstance or JCache CacheManager in the context, so rate limits"
            + " are kept in this process: each instance of the application has its own budgets (N instances admit"
            + " up to N times each limit). Add Hazelcast or a JCache provider to share them.";

    @Bean
    @ConditionalOnMissingBean(RateLimiters.class)
    SluiceRateLimiters sluiceRateLimiters(HttpRateLimiterConfig config) {
        LOG.warn(WARNING);
        return new SluiceRateLimiters(LocalRateLimiters.create(java.time.InstantSource.system(), config.capacity()),
                SluiceRateLimiters.IN_PROCESS);
    }
}
