package dev.sluice.it.hazelcast;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.hazelcast.SluiceSerializerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A member or client without Sluice's serialization factory gets a clear error when limiters are created. */
final class HazelcastMisconfigurationTest {
    private static TestCluster plain;
    private static TestCluster sluice;

    @BeforeAll
    static void start() {
        plain = new TestClusterBuilder("sluice-plain").startPlainMember();
        sluice = TestCluster.start("sluice-configured", 1, null);
    }

    @AfterAll
    static void stop() {
        if (plain != null) {
            plain.close();
        }
        if (sluice != null) {
            sluice.close();
        }
    }

    /** The most common complaint with the peer library: a cluster whose members lack the classes. */
    @Test
    void create_clusterWithoutSluice_failsSayingWhatToPutOnTheMembersClasspath() {
        HazelcastInstance client = plain.addClient(SluiceHazelcast.configure(plain.clientConfig()));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> HazelcastRateLimiters.create(client));
        String m = e.getMessage();
        assertTrue(m.contains("hazelcast-impl") && m.contains("classpath") && m.contains("SluiceMember")
                && m.contains(SluiceSerializerFactory.class.getName())
                && m.contains(Integer.toString(SluiceSerializerFactory.factoryId())), m);
    }

    @Test
    void create_clientWithoutFactory_failsSayingHowToConfigureIt() {
        HazelcastInstance client = sluice.addClient(sluice.clientConfig());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> HazelcastRateLimiters.create(client));
        assertTrue(e.getMessage().contains("client") && e.getMessage().contains("SluiceHazelcast.configure(clientConfig)"),
                e.getMessage());
    }

    @Test
    void create_memberWithoutFactory_failsSayingHowToConfigureIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> HazelcastRateLimiters.create(plain.members.get(0)));
        assertTrue(e.getMessage().contains("member") && e.getMessage().contains("SluiceHazelcast.configure(config)"),
                e.getMessage());
    }

    /** Builds a cluster whose member has no Sluice configuration at all. */
    private record TestClusterBuilder(String name) {
        TestCluster startPlainMember() {
            TestCluster cluster = TestCluster.empty(name);
            cluster.addMember(cluster.memberConfig(0, null));
            return cluster;
        }
    }
}
