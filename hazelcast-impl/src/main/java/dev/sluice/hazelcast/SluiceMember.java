package dev.sluice.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.config.FileSystemXmlConfig;
import com.hazelcast.config.FileSystemYamlConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.io.FileNotFoundException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Starts a Hazelcast member with Sluice configured, for client-server deployments:
 * <pre>{@code
 * java -jar hazelcast-impl/target/sluice-member-<version>.jar [hazelcast.yaml]
 * }</pre>
 *
 * <p>With a Hazelcast YAML or XML config file (the first argument, or the system property
 * {@value #CONFIG_PROPERTY}), that config is loaded and {@link SluiceHazelcast#configure(Config, String)}
 * is applied on top of it. Without one, a member for one machine or a small LAN: cluster name
 * {@value #CLUSTER_PROPERTY} (default {@code sluice}), port {@value #PORT_PROPERTY} (default 5701, no
 * auto-increment), bind address {@value #BIND_PROPERTY} (default 127.0.0.1), TCP-IP join with the
 * comma-separated members {@value #MEMBERS_PROPERTY} (default: this member only), multicast and
 * auto-detection off. The map name is {@value #MAP_PROPERTY} (default {@code sluice}).
 */
public final class SluiceMember {
    /** Path of a Hazelcast {@code .yaml}/{@code .yml} or {@code .xml} config file. */
    public static final String CONFIG_PROPERTY = "sluice.member.config";
    /** Cluster name when no config file is given. */
    public static final String CLUSTER_PROPERTY = "sluice.member.cluster";
    /** Port when no config file is given. */
    public static final String PORT_PROPERTY = "sluice.member.port";
    /** Address to bind and advertise when no config file is given. */
    public static final String BIND_PROPERTY = "sluice.member.bind";
    /** Comma-separated {@code host[:port]} members to join when no config file is given. */
    public static final String MEMBERS_PROPERTY = "sluice.member.members";
    /** The Sluice map name. */
    public static final String MAP_PROPERTY = "sluice.member.map";

    private SluiceMember() {}

    /** Starts the member; it runs until the JVM is stopped. */
    public static void main(String[] args) throws Exception {
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config(args));
        Runtime.getRuntime().addShutdownHook(new Thread(member::shutdown, "sluice-member-shutdown"));
        System.out.println("Sluice member " + member.getCluster().getLocalMember().getAddress() + " started in cluster '"
                + member.getConfig().getClusterName() + "'; members: " + member.getCluster().getMembers());
    }

    /** The config {@link #main} starts a member with. */
    public static Config config(String[] args) throws FileNotFoundException {
        String path = args.length > 0 ? args[0] : System.getProperty(CONFIG_PROPERTY);
        String mapName = System.getProperty(MAP_PROPERTY, SluiceHazelcast.DEFAULT_MAP_NAME);
        Config config;
        if (path != null && !path.isBlank()) {
            String lower = path.toLowerCase(Locale.ROOT);
            if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
                config = new FileSystemYamlConfig(path);
            } else if (lower.endsWith(".xml")) {
                config = new FileSystemXmlConfig(path);
            } else {
                throw new IllegalArgumentException("config file must end in .yaml, .yml or .xml, was " + path);
            }
        } else {
            config = loopbackConfig(System.getProperty(CLUSTER_PROPERTY, "sluice"),
                    System.getProperty(BIND_PROPERTY, "127.0.0.1"),
                    Integer.getInteger(PORT_PROPERTY, 5701),
                    Arrays.stream(System.getProperty(MEMBERS_PROPERTY, "").split(","))
                            .map(String::trim).filter(s -> !s.isEmpty()).toList());
        }
        return SluiceHazelcast.configure(config, mapName);
    }

    /**
     * A fast-starting config: fixed port, TCP-IP join with {@code members} (this member when empty),
     * multicast and auto-detection off, phone-home off. Sluice is not configured yet.
     */
    public static Config loopbackConfig(String clusterName, String bind, int port, List<String> members) {
        Config config = new Config();
        config.setClusterName(clusterName);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.socket.bind.any", "false"); // listen on the bind address only
        NetworkConfig network = config.getNetworkConfig();
        network.setPort(port).setPortAutoIncrement(false);
        network.setPublicAddress(bind + ":" + port);
        network.getInterfaces().setEnabled(true).addInterface(bind);
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(members.isEmpty() ? List.of(bind + ":" + port) : members);
        return config;
    }
}
