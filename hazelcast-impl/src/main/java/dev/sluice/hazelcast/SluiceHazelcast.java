package dev.sluice.hazelcast;

import dev.sluice.limiter.algorithm.StoredState;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.config.ClientConnectionStrategyConfig;
import com.hazelcast.client.properties.ClientProperty;
import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.config.MergePolicyConfig;
import com.hazelcast.config.SerializationConfig;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Durability;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Configures Hazelcast members and clients for Sluice. Members need it (or the equivalent declarative
 * config) before they start; clients need the serialization factory to read verdicts.
 *
 * <p>Maps: {@value #DEFAULT_MAP_NAME} for {@link Durability#REPLICATED} limiters (one synchronous
 * backup: an acknowledged decision survives the loss of one member) and {@code <name>}{@value
 * #EPHEMERAL_SUFFIX} for {@link Durability#EPHEMERAL} ones (no backup: faster, and a member loss resets
 * the budgets it owned), and {@code <name>}{@value #ASYNC_BACKUP_SUFFIX} for {@link Durability#REPLICATED_ASYNC}
 * ones (one asynchronous backup and no synchronous one: a member loss forgets only the decisions whose backups
 * were still on their way). All use the {@code OBJECT} in-memory format (the state, a {@code long[]}, is
 * never serialized by a decision) and {@link SluiceMergePolicy}. A member configured by a Sluice older than
 * {@code REPLICATED_ASYNC} leaves its map to Hazelcast's defaults (a synchronous backup, {@code BINARY}, no Sluice
 * merge policy, no bound), so choose it once every member runs a Sluice that has it.
 *
 * <p>Bound: each map holds at most its {@link Capacity} of keys per member ({@link Capacity#defaults()}: a
 * quarter of the member's heap at {@value Capacity#ESTIMATED_BYTES_PER_KEY} bytes a key, counting the
 * backup copies a member holds for others). Under {@link Capacity.Policy#SHARE_OVERFLOW_CELLS} (the default) and
 * {@link Capacity.Policy#REFUSE_NEW_KEYS}, Hazelcast's eviction is off, so no state that still limits is ever
 * dropped (the sweep of expired entries still removes what no longer matters), and the owner decides a new key at the bound on its
 * overflow cell, or refuses it ({@link MemberCapacity}). Only the explicit
 * {@link Capacity.Policy#EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS} is Hazelcast's eviction ({@code PER_NODE},
 * {@code LRU}): each write to a full partition removes the least recently used of 15 sampled entries, whatever it
 * still holds, and that key's budget starts over.
 *
 * <p>Expiry: entries are written without a per-entry TTL; each member sweeps the partitions it owns for states that
 * no longer matter (a predicate over the state's expiry word, one partition at a time, where the data is), and until
 * then such a state decides exactly like an absent one.
 *
 * <p>Time: each decision uses the cluster time of the key's owner. Tests may put a
 * {@link java.time.InstantSource} into a member's user context under {@value #CLOCK_KEY}
 * ({@code config.getUserContext().put(SluiceHazelcast.CLOCK_KEY, clock)}); that member's decisions then
 * read it instead. Never do this in production: members with different clocks disagree on windows.
 */
public final class SluiceHazelcast {
    /** Name of the map of replicated limiters unless another is given. */
    public static final String DEFAULT_MAP_NAME = "sluice";
    /** Appended to the map name to name the map of ephemeral limiters. */
    public static final String EPHEMERAL_SUFFIX = "-ephemeral";
    /** Appended to the map name to name the map of limiters with an asynchronous backup. */
    public static final String ASYNC_BACKUP_SUFFIX = "-async-backup";
    /** User-context key of an {@link java.time.InstantSource} that replaces cluster time (tests only). */
    public static final String CLOCK_KEY = "sluice.clock";
    /** User-context key of the registry of maps that refuse new keys at their bound (set by {@code configure}). */
    public static final String CAPACITY_KEY = "sluice.capacity";
    /** User-context key of the sweep of expired entries (set by {@code configure}, {@link ExpirySweep}). */
    static final String SWEEP_KEY = "sluice.expiry-sweep";

    private SluiceHazelcast() {}

    /**
     * Registers Sluice's serialization factory and configures the maps {@value #DEFAULT_MAP_NAME},
     * {@value #DEFAULT_MAP_NAME}{@value #EPHEMERAL_SUFFIX} and {@value #DEFAULT_MAP_NAME}{@value #ASYNC_BACKUP_SUFFIX}
     * on a member config.
     *
     * @return {@code config}
     * @throws IllegalStateException if another factory already uses Sluice's factory id
     */
    public static Config configure(Config config) {
        return configure(config, DEFAULT_MAP_NAME);
    }

    /**
     * Registers Sluice's serialization factory and configures the maps {@code mapName} (backup count 1),
     * {@code mapName + "-ephemeral"} (backup count 0) and {@code mapName + "-async-backup"} (backup count 0,
     * asynchronous backup count 1), all {@code OBJECT} in-memory format with
     * {@link SluiceMergePolicy}, bounded by {@link Capacity#defaults()} unless the config already gives the map
     * an eviction of its own, which is then kept. Other settings of those maps (from the config's defaults) are
     * kept.
     *
     * @return {@code config}
     * @throws IllegalStateException if another factory already uses Sluice's factory id
     */
    public static Config configure(Config config, String mapName) {
        return configure(config, mapName, null);
    }

    /**
     * {@link #configure(Config, String)} with each of the three maps bounded by {@code capacity} per member,
     * whatever eviction the config had: a heap share is resolved against this JVM's maximum heap, counting
     * one backup copy per key for the maps with a backup.
     *
     * @return {@code config}
     * @throws IllegalStateException if another factory already uses Sluice's factory id
     */
    public static Config configure(Config config, String mapName, Capacity capacity) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(mapName, "mapName");
        register(config.getSerializationConfig());
        MemberCapacity registry = MemberCapacity.of(config.getUserContext());
        configureMap(config.getMapConfig(mapName), 1, 0, capacity, registry);
        configureMap(config.getMapConfig(ephemeralMapName(mapName)), 0, 0, capacity, registry);
        configureMap(config.getMapConfig(asyncBackupMapName(mapName)), 0, 1, capacity, registry);
        ExpirySweep.install(config, List.of(mapName, ephemeralMapName(mapName), asyncBackupMapName(mapName)));
        // Each member announces its cell tables, so a member whose table differs is refused (MemberCapacity.checkTable).
        registry.bounds().forEach((map, bound) -> config.getMemberAttributeConfig()
                .setAttribute(MemberCapacity.TABLE_ATTRIBUTE_PREFIX + map, String.valueOf(bound.cells())));
        return config;
    }

    /** The per-member bound in keys of {@code mapName} on a member config, or -1 when it has none. */
    static long maxKeys(Config config, String mapName) {
        long refusing = MemberCapacity.of(config.getUserContext()).keptBound(mapName);
        if (refusing >= 0) {
            return refusing;
        }
        EvictionConfig eviction = config.getMapConfig(mapName).getEvictionConfig();
        return eviction.getEvictionPolicy() != EvictionPolicy.NONE && eviction.getMaxSizePolicy() == MaxSizePolicy.PER_NODE
                ? eviction.getSize() : -1;
    }

    /**
     * Registers Sluice's serialization factory on a client config.
     *
     * @return {@code config}
     * @throws IllegalStateException if another factory already uses Sluice's factory id
     */
    public static ClientConfig configure(ClientConfig config) {
        Objects.requireNonNull(config, "config");
        register(config.getSerializationConfig());
        return config;
    }

    /**
     * Makes a client answer quickly when it loses the cluster, so that a limiter's
     * {@code decisionTimeout} and failure mode apply instead of requests stalling:
     * <ul>
     *   <li>{@code ReconnectMode.ASYNC}: while disconnected, calls fail at once with
     *       {@code HazelcastClientOfflineException} (retried by Sluice within the deadline, then the
     *       failure mode) and the client keeps reconnecting in the background;
     *   <li>{@code asyncStart}: creating the client does not wait for a cluster;
     *   <li>cluster connect timeout -1: the client never gives up reconnecting (a finite timeout shuts the
     *       client down for good when it runs out);
     *   <li>invocation timeout {@code invocationTimeout} rounded up to whole seconds (at least 1 s):
     *       bounds Hazelcast's own retries. It does not cut a running call short, which is why Sluice
     *       always waits with its own deadline;
     *   <li>backup acknowledgements go to the owner, not to the client: otherwise a client whose key's
     *       backup member dies (or which is not yet connected to it) waits up to 5 s for an ack that never
     *       comes, and a decision that was made and charged arrives too late to count. The owner learns of
     *       the loss from the cluster within a fraction of a second (measured by the fault tests).
     * </ul>
     * With {@link HazelcastRateLimiters#create} on an async-started client, {@code create} waits up to
     * 5 s for the first connection, then checks the members' classpath; a cluster not reachable by then is
     * left to the decisions' failure mode.
     *
     * @param invocationTimeout typically the limiters' {@code decisionTimeout}
     * @return {@code config}
     */
    public static ClientConfig failFast(ClientConfig config, Duration invocationTimeout) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(invocationTimeout, "invocationTimeout");
        if (invocationTimeout.isNegative() || invocationTimeout.isZero()) {
            throw new IllegalArgumentException("invocationTimeout must be positive, was " + invocationTimeout);
        }
        ClientConnectionStrategyConfig strategy = config.getConnectionStrategyConfig();
        strategy.setAsyncStart(true);
        strategy.setReconnectMode(ClientConnectionStrategyConfig.ReconnectMode.ASYNC);
        strategy.getConnectionRetryConfig().setClusterConnectTimeoutMillis(-1);
        long seconds = Math.max(1, (invocationTimeout.toMillis() + 999) / 1000);
        config.setProperty(ClientProperty.INVOCATION_TIMEOUT_SECONDS.getName(), Long.toString(seconds));
        config.setBackupAckToClientEnabled(false);
        return config;
    }

    /**
     * The state words of a value read from a Sluice map, which keeps states packed (a window, bucket or GCRA
     * state in three longs instead of five); a value that is not packed is returned as it is.
     *
     * @throws IllegalStateException if the value is a malformed packed state
     */
    public static long[] stateOf(long[] storedValue) {
        return StoredState.unpack(storedValue);
    }

    /** The map that holds ephemeral limiters when replicated ones are in {@code mapName}. */
    public static String ephemeralMapName(String mapName) {
        return mapName + EPHEMERAL_SUFFIX;
    }

    /** The map that holds limiters with an asynchronous backup when replicated ones are in {@code mapName}. */
    public static String asyncBackupMapName(String mapName) {
        return mapName + ASYNC_BACKUP_SUFFIX;
    }

    /** The map that holds the limiters of {@code durability} when replicated ones are in {@code mapName}. */
    public static String mapName(String mapName, Durability durability) {
        return switch (durability) {
            case REPLICATED -> mapName;
            case EPHEMERAL -> ephemeralMapName(mapName);
            case REPLICATED_ASYNC -> asyncBackupMapName(mapName);
        };
    }

    private static void configureMap(MapConfig map, int backupCount, int asyncBackupCount, Capacity capacity,
            MemberCapacity registry) {
        map.setBackupCount(backupCount);
        map.setAsyncBackupCount(asyncBackupCount);
        map.setInMemoryFormat(InMemoryFormat.OBJECT);
        map.setMergePolicyConfig(new MergePolicyConfig(SluiceMergePolicy.class.getName(),
                MergePolicyConfig.DEFAULT_BATCH_SIZE));
        if (capacity == null && (hasOwnEviction(map) || registry.keptBound(map.getName()) >= 0)) {
            return; // bounded already: by the user's eviction, or by an earlier configure
        }
        Capacity bound = capacity == null ? Capacity.defaults() : capacity;
        long maxKeys = bound.resolveMaxKeys(Runtime.getRuntime().maxMemory(), 1 + backupCount + asyncBackupCount);
        EvictionConfig eviction = map.getEvictionConfig().setMaxSizePolicy(MaxSizePolicy.PER_NODE)
                .setSize((int) maxKeys);
        if (bound.policy() == Capacity.Policy.EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS) {
            eviction.setEvictionPolicy(EvictionPolicy.LRU);
            registry.evictIn(map.getName());
        } else {
            eviction.setEvictionPolicy(EvictionPolicy.NONE);
            registry.keepAt(map.getName(), maxKeys, bound);
        }
    }

    /** True when the map's eviction is not Hazelcast's default (none), so the user configured one. */
    private static boolean hasOwnEviction(MapConfig map) {
        EvictionConfig eviction = map.getEvictionConfig();
        return eviction.getEvictionPolicy() != EvictionPolicy.NONE || eviction.getComparator() != null
                || eviction.getComparatorClassName() != null;
    }

    private static void register(SerializationConfig serialization) {
        int id = SluiceSerializerFactory.factoryId();
        DataSerializableFactory existing = serialization.getDataSerializableFactories().get(id);
        String existingClass = serialization.getDataSerializableFactoryClasses().get(id);
        String taken = existing != null ? existing.getClass().getName() : existingClass;
        if (taken != null && !taken.equals(SluiceSerializerFactory.class.getName())) {
            throw new IllegalStateException("data-serializable factory id " + id + " is taken by " + taken
                    + ", and Sluice's " + SluiceSerializerFactory.class.getName() + " needs it; start members and"
                    + " clients with -D" + SluiceSerializerFactory.FACTORY_ID_PROPERTY + "=<a free id>");
        }
        if (existing == null && existingClass == null) {
            serialization.addDataSerializableFactory(id, new SluiceSerializerFactory());
        }
    }
}
