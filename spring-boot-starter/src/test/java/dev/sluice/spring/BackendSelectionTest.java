package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.SluiceMember;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.http.HttpRateLimiter;
import java.util.List;
import javax.cache.CacheManager;
import javax.cache.Caching;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Which store the starter picks from the classpath and the context. */
@ExtendWith(OutputCaptureExtension.class)
class BackendSelectionTest {
    private static final String[] POLICY = {"sluice.policies.p.algorithm=fixed-window", "sluice.policies.p.permit-limit=2",
        "sluice.policies.p.window=PT1H", "management.endpoints.web.exposure.include=ratelimits"};

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(HazelcastAutoConfiguration.class))
            .withConfiguration(AutoConfigurations.of(Sluice.AUTO_CONFIGURATIONS))
            .withPropertyValues(POLICY);

    /** Hides Hazelcast from the conditions (the test classpath also has a hazelcast.yaml Boot would start). */
    private static final FilteredClassLoader NO_HAZELCAST = new FilteredClassLoader("com.hazelcast", "dev.sluice.hazelcast");

    @Test
    void noHazelcastOnTheClasspath_inProcess_withAWarning(CapturedOutput output) {
        runner.withClassLoader(NO_HAZELCAST).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(backend(context.getBean(RateLimiters.class))).isEqualTo(SluiceRateLimiters.IN_PROCESS);
                    assertThat(context).doesNotHaveBean(HazelcastInstance.class);
                    assertThat(output).contains(SluiceInProcessConfiguration.WARNING);
                    assertTwoThenRefused(context.getBean(HttpRateLimiter.class));
                });
    }

    @Test
    void configBean_memberStartsWithSluicesSerializationAndMaps() {
        runner.withUserConfiguration(MemberConfig.class).run(context -> {
            assertThat(context).hasNotFailed();
            HazelcastInstance hazelcast = context.getBean(HazelcastInstance.class);
            assertThat(hazelcast.getConfig().getMapConfig("sluice").getInMemoryFormat()).isEqualTo(InMemoryFormat.OBJECT);
            assertThat(hazelcast.getConfig().getMapConfig("sluice-ephemeral").getBackupCount()).isZero();
            assertThat(hazelcast.getConfig().getMapConfig("sluice-async-backup").getBackupCount()).isZero();
            assertThat(hazelcast.getConfig().getMapConfig("sluice-async-backup").getAsyncBackupCount()).isEqualTo(1);
            assertThat(backend(context.getBean(RateLimiters.class))).isEqualTo(SluiceRateLimiters.HAZELCAST_MEMBER);
            assertTwoThenRefused(context.getBean(HttpRateLimiter.class));
            assertThat(hazelcast.getMap("sluice").size()).isEqualTo(1);
        });
    }

    @Test
    void applicationsOwnRateLimiters_winOverAHazelcastInstance() {
        runner.withUserConfiguration(MemberConfig.class, OwnLimiters.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(HazelcastInstance.class);
            assertThat(context.getBean(RateLimiters.class)).isSameAs(context.getBean(OwnLimiters.class).limiters);
            assertThat(context.getBean(RateLimitsEndpoint.class).rateLimits()).containsEntry("backend", "application");
        });
    }

    @Test
    void jcacheCacheManagerWithoutHazelcast_jcacheBackend() {
        runner.withClassLoader(NO_HAZELCAST).withUserConfiguration(CaffeineCacheManager.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(backend(context.getBean(RateLimiters.class))).isEqualTo(SluiceRateLimiters.JCACHE);
                    assertThat(context.getBean(CacheManager.class).getCache("sluice", String.class, long[].class))
                            .isNotNull();
                    assertTwoThenRefused(context.getBean(HttpRateLimiter.class));
                });
    }

    /** {@code sluice.capacity.*} bounds the store of every backend the starter creates, validated as the filter's settings. */
    @Test
    void capacityProperties_boundEveryBackend_badValuesFailStartUp() {
        String[] capacity = {"sluice.capacity.max-keys=5000", "sluice.capacity.policy=refuse-new-keys"};
        runner.withClassLoader(NO_HAZELCAST).withPropertyValues(capacity).withBean(
                io.micrometer.core.instrument.MeterRegistry.class,
                io.micrometer.core.instrument.simple.SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RateLimiters.class).storeStatistics().maxKeys()).isEqualTo(5000);
            var registry = context.getBean(io.micrometer.core.instrument.MeterRegistry.class);
            assertThat(registry.find("sluice.store.max.keys").gauge().value()).isEqualTo(5000.0);
            assertThat(registry.find("sluice.store.overflow.decisions").functionCounter()).isNotNull();
        });
        runner.withClassLoader(NO_HAZELCAST).withUserConfiguration(CaffeineCacheManager.class)
                .withPropertyValues("sluice.capacity.max-keys=5000", "sluice.jcache.cache-name=sluice-capacity-5000")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RateLimiters.class).storeStatistics().maxKeys()).isEqualTo(5000);
                });
        runner.withUserConfiguration(MemberConfig.class).withPropertyValues(capacity).run(context -> {
            assertThat(context).hasNotFailed();
            HazelcastInstance hazelcast = context.getBean(HazelcastInstance.class);
            assertThat(hazelcast.getConfig().getMapConfig("sluice").getEvictionConfig().getSize()).isEqualTo(5000);
            assertThat(context.getBean(RateLimiters.class).storeStatistics().maxKeys()).isEqualTo(15_000); // the three maps
        });
        runner.withClassLoader(NO_HAZELCAST).withPropertyValues("sluice.capacity.policy=lru").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("sluice.capacity.policy='lru'")
                    .hasMessageContaining("overflow, refuse-new-keys, evict-resetting-budgets");
        });
    }

    @Test
    void disabled_nothingIsCreated() {
        runner.withClassLoader(NO_HAZELCAST).withPropertyValues("sluice.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(RateLimiters.class);
            assertThat(context).doesNotHaveBean(HttpRateLimiter.class);
        });
    }

    private static String backend(RateLimiters limiters) {
        return SluiceRateLimiters.backendOf(limiters);
    }

    private static void assertTwoThenRefused(HttpRateLimiter rateLimiter) {
        String partition = Keys.digest("test");
        assertThat(rateLimiter.limiter("p").tryAcquire(partition, 1).isAcquired()).isTrue();
        assertThat(rateLimiter.limiter("p").tryAcquire(partition, 1).isAcquired()).isTrue();
        assertThat(rateLimiter.limiter("p").tryAcquire(partition, 1).isAcquired()).isFalse();
    }

    @Configuration(proxyBeanMethods = false)
    static class MemberConfig {
        @Bean
        Config hazelcastConfig() {
            return SluiceMember.loopbackConfig("sluice-spring-backends", "127.0.0.1", FreePorts.take(), List.of());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLimiters {
        final RateLimiters limiters = LocalRateLimiters.create();

        @Bean
        RateLimiters myLimiters() {
            return limiters;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CaffeineCacheManager {
        @Bean(destroyMethod = "close")
        CacheManager cacheManager() {
            // Named with this class's loader: the filtered one would fail on Hazelcast's provider entry.
            return Caching.getCachingProvider("com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider",
                    BackendSelectionTest.class.getClassLoader()).getCacheManager();
        }
    }
}
