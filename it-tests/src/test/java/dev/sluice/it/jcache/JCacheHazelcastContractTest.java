package dev.sluice.it.jcache;

import com.hazelcast.cache.HazelcastCachingProvider;
import com.hazelcast.cache.impl.HazelcastServerCachingProvider;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.it.contract.Backend;
import dev.sluice.it.hazelcast.FreePorts;
import dev.sluice.jcache.JCacheRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.spi.CachingProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract suite on Hazelcast's JCache provider: two real members on 127.0.0.1 (on free ports),
 * one replica per member, so half the decisions run their processor on the other member.
 */
final class JCacheHazelcastContractTest extends JCacheContractSuite {
    static final String PROVIDER = "com.hazelcast.cache.HazelcastMemberCachingProvider";
    static final int[] PORTS = FreePorts.take(2);
    static final String CACHE = "sluice-hazelcast-contract";

    private static final List<HazelcastInstance> members = new ArrayList<>();
    private static Cache<String, long[]> cache;
    private static Backend backend;

    @BeforeAll
    static void start() {
        for (int i = 0; i < 2; i++) {
            members.add(Hazelcast.newHazelcastInstance(memberConfig(PORTS[i], i + 1)));
        }
        // The standard path for the first member; a provider bound to the instance for the second, since one
        // provider object keeps one manager per (URI, class loader). Another URI is no way out: Hazelcast
        // scopes cache names by URI, so a manager on URI "x" sees another cache (tried: 200 admitted of 100).
        CachingProvider provider = Caching.getCachingProvider(PROVIDER);
        CacheManager first = provider.getCacheManager(provider.getDefaultURI(), provider.getDefaultClassLoader(),
                HazelcastCachingProvider.propertiesByInstanceItself(members.get(0)));
        CacheManager second = new HazelcastServerCachingProvider(members.get(1)).getCacheManager();
        cache = JCacheRateLimiters.createCache(first, CACHE, Duration.ofDays(2));
        Cache<String, long[]> other = JCacheRateLimiters.createCache(second, CACHE, Duration.ofDays(2));
        backend = backend("jcache-hazelcast", new ManualClock(), List.of(cache, other), () -> {
            members.forEach(HazelcastInstance::shutdown);
            members.clear();
        });
    }

    static Config memberConfig(int port, int members) {
        Config config = new Config();
        config.setClusterName("sluice-jcache-it");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "none");
        config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = config.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true);
        for (int i = 0; i < members; i++) {
            join.getTcpIpConfig().addMember("127.0.0.1:" + PORTS[i]);
        }
        return config;
    }

    @AfterAll
    static void stop() throws Exception {
        backend.close();
    }

    @Override
    protected Backend backend() {
        return backend;
    }

    @Override
    protected Cache<String, long[]> cache() {
        return cache;
    }
}
