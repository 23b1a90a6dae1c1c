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
 * A real-TCP cluster on 127.0.0.1 tuned for fast tests: ports the system reports free ({@link FreePorts}), without
 * auto-increment, TCP-IP join listing only members already started, no multicast, phone-home off, 71 partitions.
 * Each test class uses its own cluster name, and no fixed port, so neither classes nor two builds on one machine
 * ever join or block each other.
 */
public final class TestCluster implements AutoCloseable {
    public final String name;
    /** Member {@code i}'s port; taken when its config is first asked for, so a cluster may grow. */
    private final List<Integer> ports = new ArrayList<>();
    public final List<HazelcastInstance> members = new ArrayList<>();
    public final List<HazelcastInstance> clients = new ArrayList<>();

    private TestCluster(String name) {
        this.name = name;
    }

    /** A cluster with no member yet. */
    public static TestCluster empty(String name) {
        return new TestCluster(name);
    }

    /**
     * A cluster with no member yet; {@code basePort} is ignored (ports are free ones), kept for callers written
     * when clusters had fixed ports.
     */
    public static TestCluster empty(String name, int basePort) {
        return empty(name);
    }

    /** {@code size} members with Sluice configured; {@code clock} (nullable) replaces cluster time. */
    public static TestCluster start(String name, int size, InstantSource clock) {
        TestCluster cluster = new TestCluster(name);
        for (int i = 0; i < size; i++) {
            cluster.addMember(SluiceHazelcast.configure(cluster.memberConfig(i, clock)));
        }
        return cluster;
    }

    /**
     * {@link #start(String, int, InstantSource)}; {@code basePort} is ignored (ports are free ones), kept for callers
     * written when clusters had fixed ports.
     */
    public static TestCluster start(String name, int basePort, int size, InstantSource clock) {
        return start(name, size, clock);
    }

    /** Member {@code index}'s port (taken now if it has none yet, with those of the members before it). */
    public synchronized int port(int index) {
        while (ports.size() <= index) {
            ports.add(FreePorts.take());
        }
        return ports.get(index);
    }

    /** {@code 127.0.0.1:port} of member {@code index}. */
    public String address(int index) {
        return "127.0.0.1:" + port(index);
    }

    /** The config of member {@code index}, without Sluice. */
    public Config memberConfig(int index, InstantSource clock) {
        List<String> started = new ArrayList<>();
        for (int j = 0; j <= index; j++) {
            started.add(address(j));
        }
        Config config = SluiceMember.loopbackConfig(name, "127.0.0.1", port(index), started);
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
            config.getNetworkConfig().addAddress(address(i));
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
