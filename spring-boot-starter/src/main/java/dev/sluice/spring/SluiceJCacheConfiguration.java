package dev.sluice.spring;

import dev.sluice.jcache.JCacheRateLimiters;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.RateLimitPolicy;
import java.time.Duration;
import java.util.Arrays;
import javax.cache.CacheManager;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The JCache backend, when the context has a JCache {@link CacheManager} (and no Hazelcast instance): the
 * cache {@code sluice.jcache.cache-name}, created with an expiry that outlives every configured policy's
 * state if the manager does not have it.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({CacheManager.class, JCacheRateLimiters.class})
class SluiceJCacheConfiguration {

    @Bean
    @ConditionalOnMissingBean(RateLimiters.class)
    @ConditionalOnSingleCandidate(CacheManager.class)
    SluiceRateLimiters sluiceRateLimiters(CacheManager cacheManager, SluiceProperties properties,
            HttpRateLimiterConfig config) {
        LimitSpec[] specs = config.policies().values().stream().map(RateLimitPolicy::spec).toArray(LimitSpec[]::new);
        // Without configured policies the expiry must still outlive whatever limiters code creates itself.
        Duration lifetime = specs.length == 0 ? Duration.ofHours(1)
                : JCacheRateLimiters.maxStateLifetime(specs[0], Arrays.copyOfRange(specs, 1, specs.length));
        return new SluiceRateLimiters(JCacheRateLimiters.builder(JCacheRateLimiters.createCache(cacheManager,
                        properties.getJcache().getCacheName(), lifetime, config.capacity()))
                .keyPrefix(properties.getKeyPrefix()).capacity(config.capacity()).build(), SluiceRateLimiters.JCACHE);
    }
}
