package dev.sluice.hazelcast;

import com.hazelcast.config.Config;
import com.hazelcast.config.FileSystemXmlConfig;
import com.hazelcast.config.FileSystemYamlConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Capacity;
import java.io.FileNotFoundException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Starts a Hazelcast member with Sluice configured, for client-server deployments:
 * <pre>{@code
 * java -jar hazelcast-impl/target/sluice-member-<version>.jar [hazelcast.yaml]
 * java -jar hazelcast-impl/target/sluice-member-<version>.jar inspect|reset <key> <algorithm> <setting>=<value>...
 * }</pre>
 * The second form reads or resets one key of a running cluster ({@link KeyCommands}).
 *
 * <p>With a Hazelcast YAML or XML config file (the first argument, or the system property
 * {@value #CONFIG_PROPERTY}), that config is loaded and {@link SluiceHazelcast#configure(Config, String)}
 * is applied on top of it. Without one, a member for one machine or a small LAN: cluster name
 * {@value #CLUSTER_PROPERTY} (default {@code sluice}), port {@value #PORT_PROPERTY} (default 5701, no
 * auto-increment), bind address {@value #BIND_PROPERTY} (default 127.0.0.1), TCP-IP join with the
 * comma-separated members {@value #MEMBERS_PROPERTY} (default: this member only), multicast and
 * auto-detection off. The map name is {@value #MAP_PROPERTY} (default {@code sluice}).
 *
 * <p>The maps' bound per member ({@link Capacity}): {@value #MAX_KEYS_PROPERTY} keys or {@value #HEAP_PERCENT_PROPERTY}
 * percent of this member's heap (not both), and {@value #AT_CAPACITY_PROPERTY} {@code overflow} (the default: new
 * keys at the bound share overflow cells), {@code refuse} (keys without state are refused) or
 * {@code evict-resetting-budgets} (least recently used state goes, and its budget starts over), and
 * {@value #OVERFLOW_CELLS_PROPERTY}, the overflow cells per limiter ({@link Capacity#withOverflowCells}: the same on
 * every member, or the member refuses to start). With none of them set, {@link Capacity#defaults()} applies, unless a
 * config file gives the maps an eviction of their own.
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
    /** Bound of each Sluice map in keys per member. */
    public static final String MAX_KEYS_PROPERTY = "sluice.member.maxKeys";
    /** Bound of each Sluice map as a percentage of this member's heap. */
    public static final String HEAP_PERCENT_PROPERTY = "sluice.member.heapPercent";
    /** What a full map does: {@code overflow}, {@code refuse} or {@code evict-resetting-budgets}. */
    public static final String AT_CAPACITY_PROPERTY = "sluice.member.atCapacity";
    /** Overflow cells per limiter and algorithm, the same on every member. */
    public static final String OVERFLOW_CELLS_PROPERTY = "sluice.member.overflowCells";

    private SluiceMember() {}

    /**
     * Starts the member; it runs until the JVM is stopped. With {@code inspect} or {@code reset} as the first
     * argument, instead reads or resets one key of a running cluster as a client ({@link KeyCommands}) and exits.
     */
    public static void main(String[] args) throws Exception {
        if (KeyCommands.handles(args)) {
            try {
                KeyCommands.run(args, System::getProperty, System.out);
            } catch (IllegalArgumentException e) {
                System.err.println(e.getMessage());
                System.exit(2);
            }
            return;
        }
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config(args));
        try {
            MemberCapacity.checkTable(member);
        } catch (IllegalStateException e) {
            member.shutdown(); // a member whose cell table differs would place keys on cells that hold no spending
            throw e;
        }
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
        Capacity capacity = withCells(capacity(System.getProperty(MAX_KEYS_PROPERTY),
                System.getProperty(HEAP_PERCENT_PROPERTY), System.getProperty(AT_CAPACITY_PROPERTY)),
                System.getProperty(OVERFLOW_CELLS_PROPERTY));
        return capacity == null ? SluiceHazelcast.configure(config, mapName)
                : SluiceHazelcast.configure(config, mapName, capacity);
    }

    /**
     * The bound the launcher's properties give, or {@code null} when none is set.
     *
     * @throws IllegalArgumentException naming the property and the value it had
     */
    static Capacity capacity(String maxKeys, String heapPercent, String atCapacity) {
        if (maxKeys == null && heapPercent == null && atCapacity == null) {
            return null;
        }
        if (maxKeys != null && heapPercent != null) {
            throw new IllegalArgumentException("set " + MAX_KEYS_PROPERTY + " or " + HEAP_PERCENT_PROPERTY
                    + ", not both (were " + maxKeys + " and " + heapPercent + ")");
        }
        Capacity bound;
        try {
            bound = maxKeys != null ? Capacity.maxKeys(Long.parseLong(maxKeys.trim()))
                    : heapPercent != null ? Capacity.heapPercent(Integer.parseInt(heapPercent.trim()))
                    : Capacity.defaults();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException((maxKeys != null ? MAX_KEYS_PROPERTY : HEAP_PERCENT_PROPERTY)
                    + " must be a whole number, was '" + (maxKeys != null ? maxKeys : heapPercent) + "'", e);
        }
        String policy = atCapacity == null ? "overflow" : atCapacity.trim().toLowerCase(java.util.Locale.ROOT);
        return switch (policy) {
            case "overflow" -> bound;
            case "refuse" -> bound.refuseNewKeys();
            case "evict-resetting-budgets" -> bound.evictLeastRecentlyUsedResettingBudgets();
            default -> throw new IllegalArgumentException(AT_CAPACITY_PROPERTY + " must be 'overflow', 'refuse' or"
                    + " 'evict-resetting-budgets', was '" + atCapacity + "'");
        };
    }

    /**
     * {@code capacity} (the defaults when {@code null}) with the overflow cells {@code cells} gives, or as it is when
     * {@code cells} is {@code null}.
     *
     * @throws IllegalArgumentException naming the property and the value it had
     */
    static Capacity withCells(Capacity capacity, String cells) {
        if (cells == null) {
            return capacity;
        }
        try {
            return (capacity == null ? Capacity.defaults() : capacity).withOverflowCells(Integer.parseInt(cells.trim()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(OVERFLOW_CELLS_PROPERTY + " must be a whole number, was '" + cells + "'",
                    e);
        }
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
