package dev.sluice.spring;

import dev.sluice.limiter.RateLimiters;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;

/**
 * The store, {@link RateLimiters}: a Hazelcast instance of the context, else a JCache {@code CacheManager}, else
 * in-process with a warning; an application's own bean wins. Excluding this auto-configuration means the
 * application declares its own {@link RateLimiters} bean.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
        "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration"})
@ConditionalOnSluiceSwitch("sluice.enabled")
@EnableConfigurationProperties(SluiceProperties.class)
// Backends in order of preference; each registers only if no RateLimiters exists yet. They are imports, not
// nested classes, because nested classes would be registered before the imports.
@Import({SluiceBinding.Advisor.class, SluiceHazelcastConfiguration.class, SluiceJCacheConfiguration.class, SluiceInProcessConfiguration.class})
public class SluiceBackendAutoConfiguration {
}
