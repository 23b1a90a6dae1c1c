package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * On a real Hazelcast member, as an attacker with a client on its port would see it: with a secret, the map's
 * key for {@code ip:127.0.0.101} is not its plain SHA-256 (which brute force over 127.0.0.0/16 reverses), and a
 * replica configured with another secret, or none, refuses to start on the same cluster.
 */
final class KeyedIdentitiesOnHazelcastTest {
    private static final String SECRET = "a secret shared by the replicas";

    @Test
    void secret_storedKeyIsKeyed_andReplicasWithAnotherSecretFailToStart() throws Exception {
        int port = GatewayFormsTest.freePort();
        Config config = SluiceHazelcast.configure(new Config()).setClusterName("sluice-keyed-" + UUID.randomUUID());
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.getNetworkConfig().setPort(port).setPortAutoIncrement(false);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(true).setMembers(List.of("127.0.0.1:" + port));
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        try (RateLimiters first = HazelcastRateLimiters.create(member);
                RateLimiters second = HazelcastRateLimiters.create(member)) {
            HttpRateLimiter replica = new HttpRateLimiter(first, login().identitySecret(SECRET).build());
            assertThat(replica.limiter("login").tryAcquire(replica.partition("ip:127.0.0.101"), 1).isAcquired()).isTrue();

            Set<String> keys = member.<String, long[]>getMap(SluiceHazelcast.DEFAULT_MAP_NAME).keySet();
            assertThat(keys).contains("sluice/login/" + replica.partition("ip:127.0.0.101"))
                    .noneMatch(k -> k.endsWith(Keys.digest("ip:127.0.0.101")))
                    .noneMatch(k -> k.contains(SECRET));
            assertThat(member.<String, long[]>getMap(SluiceHazelcast.DEFAULT_MAP_NAME + "-settings").keySet())
                    .containsExactly("sluice/#identity-secret-fingerprint");

            assertThatThrownBy(() -> new HttpRateLimiter(second, login().identitySecret("another secret of 16+").build()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("the replicas sharing this store key client identities differently");
            assertThatThrownBy(() -> new HttpRateLimiter(second, login().build()))
                    .hasMessageContaining("this one with identity-secret fingerprint none (no secret)");
            new HttpRateLimiter(second, login().identitySecret(SECRET).build()).close();
            replica.close();
        } finally {
            member.getLifecycleService().terminate();
        }
    }

    private static HttpRateLimiterConfig.Builder login() {
        return HttpRateLimiterConfig.builder().policy("login", LimitSpec.slidingLog(5, Duration.ofMinutes(1)));
    }
}
