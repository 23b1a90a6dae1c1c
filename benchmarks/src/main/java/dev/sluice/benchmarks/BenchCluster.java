package dev.sluice.benchmarks;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.SerializationConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.hazelcast.SluiceMember;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Hazelcast members and clients for the benchmarks, on 127.0.0.1, ports 6101-6199 only: the same config
 * for a member in this JVM and for one in a member JVM started by {@link #startMemberJvms}.
 *
 * <p>Maps: Sluice's ({@code sluice} with one backup, {@code sluice-ephemeral} with none, {@code sluice-async-backup}
 * with one asynchronous backup), {@value #RAW}
 * and {@value #RAW_EPHEMERAL} for {@link RawCounterProcessor} (the same backup counts and {@code OBJECT}
 * format as Sluice's), and {@value #BUCKET4J} (Hazelcast's defaults: one backup, {@code BINARY}, as
 * Bucket4j documents it).
 */
final class BenchCluster {
    static final String RAW = "raw";
    static final String RAW_EPHEMERAL = "raw-ephemeral";
    /** {@value #RAW}'s twin for the raw processor that writes with a per-entry TTL. */
    static final String RAW_TTL = "raw-ttl";
    static final String BUCKET4J = "bucket4j";
    /** Bucket4j's serializers' type ids start here. */
    static final int BUCKET4J_TYPE_ID_BASE = 1000;
    static final String READY = "SLUICE-BENCH-MEMBER-READY";

    /** Hazelcast asks for these on Java 17. */
    static final List<String> HAZELCAST_OPENS = List.of("--add-modules", "java.se",
            "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens", "java.management/sun.management=ALL-UNNAMED",
            "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED");

    private BenchCluster() {}

    /** A member config: port {@code port}, joining {@code members} (those already started, and itself). */
    static Config memberConfig(String cluster, int port, List<String> members) {
        checkPort(port);
        Config config = SluiceMember.loopbackConfig(cluster, "127.0.0.1", port, members);
        config.setInstanceName(cluster + "-" + port);
        config.setProperty("hazelcast.logging.type", "none");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        SluiceHazelcast.configure(config);
        if (!capacityBound()) {
            // Without the registry the processors store every new key at once: the cost of the bound, measured
            config.getUserContext().remove(SluiceHazelcast.CAPACITY_KEY);
        }
        register(config.getSerializationConfig());
        rawMap(config.getMapConfig(RAW), 1);
        rawMap(config.getMapConfig(RAW_EPHEMERAL), 0);
        rawMap(config.getMapConfig(RAW_TTL), 1);
        return config;
    }

    /** The system property that turns the capacity bound of Sluice's maps off ({@code off}), for profiling it. */
    static final String CAPACITY_PROPERTY = "sluice.bench.capacity";

    /** False with {@code -Dsluice.bench.capacity=off}. */
    static boolean capacityBound() {
        return !"off".equals(System.getProperty(CAPACITY_PROPERTY));
    }

    private static void rawMap(MapConfig map, int backups) {
        map.setBackupCount(backups).setAsyncBackupCount(0).setInMemoryFormat(InMemoryFormat.OBJECT);
    }

    private static void register(SerializationConfig serialization) {
        HazelcastProxyManager.addCustomSerializers(serialization, BUCKET4J_TYPE_ID_BASE);
        serialization.addDataSerializableFactory(RawCounterProcessor.FACTORY_ID, new RawCounterProcessor.Factory());
    }

    static HazelcastInstance member(String cluster, int port, List<String> members) {
        return Hazelcast.newHazelcastInstance(memberConfig(cluster, port, members));
    }

    static HazelcastInstance client(String cluster, List<String> addresses) {
        ClientConfig config = new ClientConfig();
        config.setClusterName(cluster);
        config.setProperty("hazelcast.logging.type", "none");
        addresses.forEach(a -> config.getNetworkConfig().addAddress(a));
        SluiceHazelcast.configure(config);
        register(config.getSerializationConfig());
        return HazelcastClient.newHazelcastClient(config);
    }

    /** Waits until {@code hz} sees {@code size} members and no migration is pending. */
    static void awaitSafe(HazelcastInstance hz, int size) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (hz.getCluster().getMembers().size() < size || !hz.getPartitionService().isClusterSafe()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("cluster not safe with " + size + " members within 60 s: "
                        + hz.getCluster().getMembers());
            }
            sleep(20);
        }
    }

    /** Empties every benchmark map, so the next run starts from nothing and members stay small. */
    static void clearMaps(HazelcastInstance hz) {
        for (String map : List.of(SluiceHazelcast.DEFAULT_MAP_NAME,
                SluiceHazelcast.ephemeralMapName(SluiceHazelcast.DEFAULT_MAP_NAME),
                SluiceHazelcast.asyncBackupMapName(SluiceHazelcast.DEFAULT_MAP_NAME), RAW, RAW_EPHEMERAL, RAW_TTL, BUCKET4J)) {
            hz.getMap(map).clear();
        }
    }

    /**
     * The system property that gives each benchmark member this JVM starts a port the system says is free instead of
     * its fixed one: the smoke test's, so that two builds on one machine run it side by side.
     */
    static final String FREE_PORTS_PROPERTY = "sluice.bench.freePorts";

    /** {@code fixed}, or with {@link #FREE_PORTS_PROPERTY} a free port. */
    static int port(int fixed) {
        if (!Boolean.getBoolean(FREE_PORTS_PROPERTY)) {
            return fixed;
        }
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static void checkPort(int port) {
        if (Boolean.getBoolean(FREE_PORTS_PROPERTY)) {
            return;
        }
        if (port < 6101 || port > 6199) {
            throw new IllegalArgumentException("benchmark ports must be in 6101-6199, was " + port);
        }
    }

    /**
     * Starts one member JVM per port (java.home, this JVM's class path, -Xmx512m), each joining the
     * ones before it, and waits until each prints that it is ready. The caller must {@link #kill} them.
     */
    static List<Process> startMemberJvms(String cluster, int... ports) {
        return startMemberJvms("512m", cluster, ports);
    }

    /** Like {@link #startMemberJvms(String, int...)}, each member with a heap of {@code heap} ({@code -Xmx}). */
    static List<Process> startMemberJvms(String heap, String cluster, int... ports) {
        List<Process> processes = new ArrayList<>();
        List<String> started = new ArrayList<>();
        try {
            for (int port : ports) {
                checkPort(port);
                started.add("127.0.0.1:" + port);
                List<String> command = new ArrayList<>();
                command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
                command.addAll(Arrays.asList("-Xmx" + heap, "-XX:+UseParallelGC"));
                command.addAll(HAZELCAST_OPENS);
                if (!capacityBound()) {
                    command.add("-D" + CAPACITY_PROPERTY + "=off");
                }
                command.addAll(Arrays.asList("-Dhazelcast.phone.home.enabled=false", "-Dhazelcast.logging.type=none",
                        "-cp", System.getProperty("java.class.path"), BenchMember.class.getName(),
                        cluster, Integer.toString(port), String.join(",", started)));
                Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
                processes.add(process);
                awaitReady(process, port);
            }
            return processes;
        } catch (IOException | RuntimeException e) {
            kill(processes);
            throw new IllegalStateException("could not start member JVMs for " + cluster + ": " + e, e);
        }
    }

    private static void awaitReady(Process process, int port) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null) {
            if (line.contains(READY)) {
                Thread drain = new Thread(() -> {
                    try {
                        while (out.readLine() != null) {
                            // discard: keeps the member from blocking on a full pipe
                        }
                    } catch (IOException ignored) {
                        // the member was killed
                    }
                }, "member-" + port + "-output");
                drain.setDaemon(true);
                drain.start();
                return;
            }
            seen.append(line).append('\n');
        }
        throw new IOException("member JVM on port " + port + " exited before it was ready:\n" + seen);
    }

    static void kill(List<Process> processes) {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
