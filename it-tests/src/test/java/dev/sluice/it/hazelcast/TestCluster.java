package dev.sluice.it.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.hazelcast.SluiceMember;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;

/**
 * A real-TCP cluster on 127.0.0.1 tuned for fast tests: fixed ports without auto-increment, TCP-IP join
 * listing only members already started, no multicast, phone-home off, 71 partitions. Each test class
 * uses its own port range and cluster name so classes never join each other.
 */
public final class TestCluster implements AutoCloseable {
    public final String name;
    public final int basePort;
    public final List<HazelcastInstance> members = new ArrayList<>();
    public final List<HazelcastInstance> clients = new ArrayList<>();

    private TestCluster(String name, int basePort) {
        this.name = name;
        this.basePort = basePort;
    }

    /** A cluster with no member yet. */
    public static TestCluster empty(String name, int basePort) {
        return new TestCluster(name, basePort);
    }

    /** {@code size} members with Sluice configured; {@code clock} (nullable) replaces cluster time. */
    public static TestCluster start(String name, int basePort, int size, InstantSource clock) {
        TestCluster cluster = new TestCluster(name, basePort);
        for (int i = 0; i < size; i++) {
            cluster.addMember(SluiceHazelcast.configure(cluster.memberConfig(i, clock)));
        }
        return cluster;
    }

    /** The config of member {@code index}, without Sluice. */
    public Config memberConfig(int index, InstantSource clock) {
        List<String> started = new ArrayList<>();
        for (int j = 0; j <= index; j++) {
            started.add("127.0.0.1:" + (basePort + j));
        }
        Config config = SluiceMember.loopbackConfig(name, "127.0.0.1", basePort + index, started);
        config.setInstanceName(name + "-" + index);
        config.setProperty("hazelcast.partition.count", "71");
        config.setProperty("hazelcast.logging.type", "none");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        if (clock != null) {
            config.getUserContext().put(SluiceHazelcast.CLOCK_KEY, clock);
        }
        return config;
    }

    public HazelcastInstance addMember(Config config) {
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        members.add(member);
        return member;
    }

    /** A client config for this cluster, without Sluice. */
    public ClientConfig clientConfig() {
        ClientConfig config = new ClientConfig();
        config.setClusterName(name);
        config.setProperty("hazelcast.logging.type", "none");
        for (int i = 0; i < members.size(); i++) {
            config.getNetworkConfig().addAddress("127.0.0.1:" + (basePort + i));
        }
        return config;
    }

    public HazelcastInstance addClient(ClientConfig config) {
        HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
        clients.add(client);
        return client;
    }

    @Override
    public void close() {
        for (HazelcastInstance c : clients) {
            c.shutdown();
        }
        for (HazelcastInstance m : members) {
            m.getLifecycleService().terminate();
        }
    }
}
