package dev.sluice.it.faults;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.client.impl.clientside.HazelcastClientProxy;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.it.hazelcast.FreePorts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A cluster of member JVMs ({@link MemberProcess}) on 127.0.0.1, member {@code i} on {@link #port(int)}, a port
 * the system reported free when the cluster was made (kept across the member's restarts), started with the
 * {@code SluiceMember} launcher and the test classpath, plus the Hazelcast clients a test creates through it.
 * Fast start: no port auto-increment, TCP-IP join with members already started, 71 partitions, no shutdown hook
 * of Hazelcast's own (a SIGTERM then shuts down gracefully through the launcher's hook).
 *
 * <p>{@link #close()} shuts the clients down and kills every member JVM; use it in try-with-resources or
 * {@code @AfterAll}, with {@link Reaper} as a last resort.
 */
final class FaultCluster implements AutoCloseable {
    static final String SLUICE_MEMBER = "dev.sluice.hazelcast.SluiceMember";
    /** What the launcher prints once the member has joined. */
    static final String STARTED = "Sluice member ";
    static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    final String name;
    private final int[] ports;
    private final MemberProcess[] members;
    private final int[] launches;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private String maxHeap = "256m";
    private final List<HazelcastInstance> clients = new CopyOnWriteArrayList<>();
    private String classpath = MemberProcess.classpath(entry -> false);

    /** A cluster of up to {@code size} members, none started. */
    FaultCluster(String name, int size) {
        this.name = name;
        this.ports = FreePorts.take(size);
        this.members = new MemberProcess[size];
        this.launches = new int[size];
        properties.put("hazelcast.partition.count", "71");
        properties.put("hazelcast.shutdownhook.enabled", "false");
    }

    /** {@link #FaultCluster(String, int)}; {@code basePort} is ignored (ports are free ones). */
    FaultCluster(String name, int basePort, int size) {
        this(name, size);
    }

    /** Starts {@code size} members: the first, then the others at once, each joining through the first. */
    static FaultCluster start(String name, int size, String classpath) {
        return new FaultCluster(name, size).classpath(classpath).startAll();
    }

    /** Starts {@code size} members with the test's classpath. */
    static FaultCluster start(String name, int size) {
        return new FaultCluster(name, size).startAll();
    }

    /** {@link #start(String, int, String)}; {@code basePort} is ignored (ports are free ones). */
    static FaultCluster start(String name, int basePort, int size, String classpath) {
        return start(name, size, classpath);
    }

    /** {@link #start(String, int)}; {@code basePort} is ignored (ports are free ones). */
    static FaultCluster start(String name, int basePort, int size) {
        return start(name, size);
    }

    /** The maximum heap ({@code -Xmx}) of members started from now on; 256m unless set. */
    FaultCluster maxHeap(String maxHeap) {
        this.maxHeap = maxHeap;
        return this;
    }

    /** The classpath of members started from now on; the test's own unless set. */
    FaultCluster classpath(String classpath) {
        this.classpath = classpath;
        return this;
    }

    /** Adds a system property for members started from now on. */
    FaultCluster property(String key, String value) {
        properties.put(key, value);
        return this;
    }

    FaultCluster startAll() {
        launch(0, List.of(0)).awaitOutput(STARTED, START_TIMEOUT);
        List<MemberProcess> rest = new ArrayList<>();
        for (int i = 1; i < members.length; i++) {
            rest.add(launch(i, List.of(0, i)));
        }
        rest.forEach(m -> m.awaitOutput(STARTED, START_TIMEOUT));
        return this;
    }

    int port(int index) {
        return ports[index];
    }

    String address(int index) {
        return "127.0.0.1:" + port(index);
    }

    MemberProcess member(int index) {
        return members[index];
    }

    int size() {
        return members.length;
    }

    /** Indexes of the members whose JVM runs. */
    List<Integer> live() {
        return IntStream.range(0, members.length).filter(i -> members[i] != null && members[i].isAlive())
                .boxed().toList();
    }

    /** Starts member {@code index} (its JVM must not run) with the TCP-IP list {@code join}; returns at once. */
    MemberProcess launch(int index, List<Integer> join) {
        if (members[index] != null && members[index].isAlive()) {
            throw new IllegalStateException("member " + index + " of " + name + " already runs");
        }
        Map<String, String> props = new LinkedHashMap<>(properties);
        props.put("sluice.member.cluster", name);
        props.put("sluice.member.port", Integer.toString(port(index)));
        props.put("sluice.member.bind", "127.0.0.1");
        props.put("sluice.member.members", join.stream().map(this::address).collect(Collectors.joining(",")));
        String logName = name + "-m" + index + "-" + (++launches[index]);
        members[index] = MemberProcess.start(logName, classpath, maxHeap, props, SLUICE_MEMBER, List.of());
        return members[index];
    }

    /** Starts member {@code index} again, joining the live members, and waits until it has joined. */
    MemberProcess restart(int index) {
        List<Integer> join = new ArrayList<>(live());
        join.add(index);
        return launch(index, join).awaitOutput(STARTED, START_TIMEOUT);
    }

    /** SIGKILL. */
    void kill(int index) {
        members[index].kill();
    }

    /** Graceful shutdown: the member hands its partitions over before leaving. */
    void stop(int index) {
        members[index].stop(Duration.ofSeconds(90));
    }

    /**
     * A client of the members {@code indexes} (all when empty) with Sluice's serialization and
     * {@link SluiceHazelcast#failFast}; reconnect backoff shortened to 100-1000 ms so tests need not wait out
     * the default 1-30 s. It starts asynchronously: see {@link #awaitMembers}.
     */
    HazelcastInstance client(Duration invocationTimeout, int... indexes) {
        ClientConfig config = new ClientConfig();
        config.setClusterName(name);
        config.setProperty("hazelcast.logging.type", "none");
        int[] targets = indexes.length == 0 ? IntStream.range(0, members.length).toArray() : indexes;
        for (int i : targets) {
            config.getNetworkConfig().addAddress(address(i));
        }
        config.getConnectionStrategyConfig().getConnectionRetryConfig()
                .setInitialBackoffMillis(100).setMaxBackoffMillis(1000);
        SluiceHazelcast.failFast(SluiceHazelcast.configure(config), invocationTimeout);
        return client(config);
    }

    HazelcastInstance client(ClientConfig config) {
        HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
        clients.add(client);
        return client;
    }

    /**
     * Waits until {@code client} sees exactly {@code count} members and holds a connection to each. (Seeing
     * a member is not enough: a backup acknowledgement that a member cannot send to the client is lost, and
     * the client then waits out its 5 s backup timeout; measured with {@link #warmUp}: 5.3 s with one
     * connection of two, 0.1-0.7 s with both.)
     */
    static void awaitMembers(HazelcastInstance client, int count, Duration timeout) {
        await(() -> client.getCluster().getMembers().size() == count && connections(client) != 0
                        && (connections(client) < 0 || connections(client) >= count), timeout,
                () -> "client sees " + client.getCluster().getMembers() + " with " + connections(client)
                        + " connections, expected " + count + " members");
    }

    /**
     * Writes one entry per partition through {@code client} (a plain map with one synchronous backup, not
     * Sluice's) and waits for all the writes; returns how long that took. On a freshly formed cluster the
     * first writes can wait out the client's backup-ack timeout (5 s) while the partition table settles; a
     * test that measures something else (a restart, a kill) warms up first so that this cold-start stall
     * is not mistaken for the fault's effect.
     */
    static Duration warmUp(HazelcastInstance client) {
        int connections = connections(client);
        long start = System.nanoTime();
        int partitions = client.getPartitionService().getPartitions().size();
        Set<Integer> covered = new HashSet<>();
        List<CompletableFuture<Long>> writes = new ArrayList<>();
        IMap<String, Long> map = client.getMap("faults-warm-up");
        for (int i = 0; covered.size() < partitions && i < 100_000; i++) {
            String key = "warm-up-" + i;
            if (covered.add(client.getPartitionService().getPartition(key).getPartitionId())) {
                writes.add(map.putAsync(key, (long) i).toCompletableFuture());
            }
        }
        try {
            CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0]))
                    .get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("warm-up writes failed", e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.println("[faults] warm-up: one write per partition (" + covered.size() + ") took " + took.toMillis()
                + " ms (client connected to " + connections + " of " + client.getCluster().getMembers().size() + " members before)");
        return took;
    }

    /** How many members {@code client} holds a connection to (Hazelcast internal API; -1 if unavailable). */
    static int connections(HazelcastInstance client) {
        return client instanceof HazelcastClientProxy proxy
                ? proxy.client.getConnectionManager().getActiveConnections().size() : -1;
    }

    /** The index of the member that owns {@code key}'s partition, as {@code client} sees it, or -1. */
    int ownerOf(HazelcastInstance client, String key) {
        Member owner = client.getPartitionService().getPartition(key).getOwner();
        return owner == null ? -1 : indexOfPort(owner.getAddress().getPort());
    }

    private int indexOfPort(int port) {
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] == port) {
                return i;
            }
        }
        return -1;
    }

    /** Polls {@code condition} every 20 ms. */
    static void await(BooleanSupplier condition, Duration timeout, Supplier<String> failure) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("after " + timeout + ": " + failure.get());
            }
            MemberProcess.sleep(20);
        }
    }

    /** Shuts the clients down and kills every member JVM. */
    @Override
    public void close() {
        for (HazelcastInstance client : clients) {
            try {
                client.getLifecycleService().terminate();
            } catch (RuntimeException e) {
                // keep closing the rest
            }
        }
        clients.clear();
        for (MemberProcess member : members) {
            if (member != null) {
                member.close();
            }
        }
    }
}
