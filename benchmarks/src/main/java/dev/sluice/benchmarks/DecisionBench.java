package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Coalescing;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One rate-limit decision, timed per call ({@link Mode#SampleTime}: the latency distribution, and the
 * throughput as threads / mean time). Every contender runs the same workload on the same topology.
 *
 * <p>Topologies: {@code embedded}, this JVM is a member and the other member is another JVM (so about
 * half the keys are remote); {@code client}, this JVM is a client of two member JVMs; {@code none} for
 * contenders without Hazelcast. Member JVMs come from {@link BenchmarkMain} (system properties
 * {@value #EMBEDDED_PROPERTY} and {@value #SERVERS_PROPERTY}) so that every run reuses them; without
 * those properties this benchmark starts (and kills) its own. {@code -Dsluice.bench.embedded=solo} (or {@code solo:<port>}) makes
 * the embedded topology a single member in this JVM (the smoke mode).
 *
 * <p>Workloads: {@code keys} {@code hot} (one key) or {@code uniform} (100,000 keys, uniformly at
 * random); {@code outcome} {@code grant} (every decision granted) or {@code refuse} (90% of decisions
 * go to keys whose budget is spent before measuring, so are refused).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-XX:+UseParallelGC", "-Dhazelcast.phone.home.enabled=false",
        "-Dhazelcast.logging.type=none", "--add-modules", "java.se",
        "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens", "java.management/sun.management=ALL-UNNAMED",
        "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 2, time = 2)
public class DecisionBench {
    static final String EMBEDDED_PROPERTY = "sluice.bench.embedded";
    static final String SERVERS_PROPERTY = "sluice.bench.servers";
    static final String AUX_PROPERTY = "sluice.bench.aux";
    /** Heads the aux lines of an allowance's stranded permits (the others are granted percentages). */
    static final String STRANDED_TAG = "stranded";
    static final String EMBEDDED_CLUSTER = "sluice-bench-embedded";
    static final String SERVERS_CLUSTER = "sluice-bench-servers";
    static final int EMBEDDED_EXTERNAL_PORT = 6101;
    static final int EMBEDDED_LOCAL_PORT = 6102;
    static final int[] SERVER_PORTS = {6111, 6112};
    static final int UNIFORM_KEYS = 100_000;

    /**
     * sluice, sluice-async, sluice-coalesced, sluice-coalesced-async, sluice-allowance (coalesced, behind the
     * pre-filter's allowance), raw, raw-async, bucket4j, bucket4j-async, local, redis, redis-replica (Redis with
     * an asynchronous replica).
     */
    @Param({"sluice"})
    public String contender;

    /** embedded, client, none. */
    @Param({"embedded"})
    public String topology;

    /** hot, uniform. */
    @Param({"uniform"})
    public String keys;

    /** grant, refuse. */
    @Param({"grant"})
    public String outcome;

    /** Sluice's algorithm (others always run a token bucket or a counter). */
    @Param({"token-bucket"})
    public String algorithm;

    /** REPLICATED, REPLICATED_ASYNC or EPHEMERAL for Sluice; REPLICATED or EPHEMERAL for the raw processor. */
    @Param({"REPLICATED"})
    public String durability;

    private final List<Process> memberJvms = new ArrayList<>();
    private HazelcastInstance hazelcast;
    private Contender subject;
    private int keyCount;
    private int openPercent;
    private final Queue<Counts> counts = new ConcurrentLinkedQueue<>();

    /** Per-thread decision counts, to check that a workload refused what it meant to. */
    @State(Scope.Thread)
    public static class Counts {
        long granted;
        long total;

        @Setup(Level.Trial)
        public void register(DecisionBench bench) {
            bench.counts.add(this);
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        keyCount = keys.equals("hot") ? 1 : UNIFORM_KEYS;
        openPercent = outcome.equals("grant") ? 100 : 10;
        if (!contender.equals("local") && !contender.startsWith("redis")) {
            hazelcast = connect();
        }
        subject = newContender();
        if (openPercent < 100 && !contender.startsWith("raw")) {
            Exhaust.closedKeys(subject, keyCount);
        }
        if (keyCount > 1) {
            // Every key holds state before measuring, as in a service with that many active clients. From
            // empty maps a cell would measure mostly first decisions (a new record, its expiry metadata and
            // a new backup) early and updates later, and drift within its own run: 2,400 µs down to
            // 1,100 µs a decision over three 2 s iterations of the raw floor.
            Exhaust.decideOnce(subject, 0, keyCount, true);
        }
        if (durability.equals("REPLICATED_ASYNC")) {
            Exhaust.settle(subject, keyCount);
        }
    }

    private HazelcastInstance connect() {
        switch (topology) {
            case "embedded": {
                String external = System.getProperty(EMBEDDED_PROPERTY);
                if (external != null && external.startsWith("solo")) { // "solo", or "solo:<port>"
                    int port = external.length() > "solo:".length()
                            ? Integer.parseInt(external.substring("solo:".length())) : 6141;
                    return BenchCluster.member("sluice-bench-solo", port, List.of("127.0.0.1:" + port));
                }
                String cluster = EMBEDDED_CLUSTER;
                int externalPort = EMBEDDED_EXTERNAL_PORT;
                int localPort = EMBEDDED_LOCAL_PORT;
                if (external == null) {
                    cluster = "sluice-bench-own-embedded";
                    externalPort = 6151;
                    localPort = 6152;
                    memberJvms.addAll(BenchCluster.startMemberJvms(cluster, externalPort));
                }
                HazelcastInstance member = BenchCluster.member(cluster, localPort,
                        List.of("127.0.0.1:" + externalPort, "127.0.0.1:" + localPort));
                BenchCluster.awaitSafe(member, 2);
                return member;
            }
            case "client": {
                String servers = System.getProperty(SERVERS_PROPERTY);
                String cluster = SERVERS_CLUSTER;
                if (servers == null) {
                    cluster = "sluice-bench-own-servers";
                    memberJvms.addAll(BenchCluster.startMemberJvms(cluster, 6161, 6162));
                    servers = "127.0.0.1:6161,127.0.0.1:6162";
                }
                HazelcastInstance client = BenchCluster.client(cluster, Arrays.asList(servers.split(",")));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (client.getCluster().getMembers().size() < 2 && System.nanoTime() < deadline) {
                    BenchCluster.sleep(20);
                }
                return client;
            }
            default:
                throw new IllegalArgumentException("contender " + contender + " needs topology embedded or client, was "
                        + topology);
        }
    }

    /**
     * Which store keys a hot key may use: in the embedded topology, one owned by the other member (a
     * key owned by this JVM would skip the network and flatter whoever drew it); elsewhere any.
     */
    private Predicate<String> placement() {
        if (hazelcast == null || !topology.equals("embedded") || hazelcast.getCluster().getMembers().size() < 2) {
            return key -> true;
        }
        return key -> !hazelcast.getPartitionService().getPartition(key).getOwner().localMember();
    }

    private Contender newContender() {
        Predicate<String> placement = placement();
        boolean ephemeral = durability.equals("EPHEMERAL");
        LimiterOptions options = LimiterOptions.builder().durability(Durability.valueOf(durability)).build();
        switch (contender) {
            case "sluice":
            case "sluice-async":
            case "sluice-coalesced":
            case "sluice-coalesced-async": {
                Coalescing coalescing = contender.startsWith("sluice-coalesced")
                        ? Coalescing.on() : Coalescing.disabled();
                return new SluiceContender(HazelcastRateLimiters.create(hazelcast, coalescing),
                        contender.endsWith("async"), keyCount, SluiceContender.openSpec(algorithm),
                        SluiceContender.closedSpec(algorithm), options, placement);
            }
            case "sluice-allowance":
                return SluiceContender.allowance(HazelcastRateLimiters.create(hazelcast, Coalescing.on()),
                        false, keyCount, SluiceContender.openSpec(algorithm), SluiceContender.closedSpec(algorithm),
                        options, placement);
            case "local":
                return new SluiceContender(LocalRateLimiters.create(), false, keyCount,
                        SluiceContender.openSpec(algorithm), SluiceContender.closedSpec(algorithm), options, placement);
            case "raw":
            case "raw-async":
                return new RawContender(hazelcast, ephemeral, contender.endsWith("async"), keyCount, placement);
            case "bucket4j":
            case "bucket4j-async":
                return new Bucket4jContender(hazelcast, contender.endsWith("async"), keyCount, placement);
            case "redis": {
                if (!RedisContender.available()) {
                    throw new IllegalStateException("no Redis server on 127.0.0.1:" + RedisContender.PORT
                            + "; start one with benchmarks/redis.sh");
                }
                RedisContender redis = new RedisContender(keyCount, 64);
                redis.flush();
                return redis;
            }
            case "redis-replica": {
                if (RedisReplica.replicas(RedisReplica.PRIMARY_PORT) < 1) {
                    throw new IllegalStateException("no Redis primary with an attached replica on 127.0.0.1:"
                            + RedisReplica.PRIMARY_PORT + "; BenchmarkMain starts one when redis-server is installed");
                }
                RedisContender redis = new RedisContender(keyCount, 64, RedisReplica.PRIMARY_PORT);
                redis.flush();
                return redis;
            }
            default:
                throw new IllegalArgumentException("unknown contender " + contender);
        }
    }

    @Benchmark
    public boolean decide(Counts c) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int key = keyCount == 1 ? 0 : random.nextInt(keyCount);
        boolean open = openPercent == 100 || random.nextInt(100) < openPercent;
        boolean granted = subject.decide(key, open);
        c.total++;
        if (granted) {
            c.granted++;
        }
        return granted;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        long granted = 0;
        long total = 0;
        for (Counts c : counts) {
            granted += c.granted;
            total += c.total;
        }
        String aux = System.getProperty(AUX_PROPERTY);
        if (aux != null && total > 0) {
            String line = String.join("\t", contender, topology, keys, outcome, algorithm, durability,
                    Integer.toString(counts.size()), Double.toString(100.0 * granted / total)) + "\n";
            Files.writeString(Path.of(aux), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
        SluiceContender.Stranded s = subject instanceof SluiceContender sluice ? sluice.stranded() : null;
        if (aux != null && s != null) {
            String line = String.join("\t", STRANDED_TAG, contender, topology, keys, outcome, algorithm, durability,
                    Integer.toString(counts.size()), Long.toString(s.taken()), Long.toString(s.granted()),
                    Long.toString(s.cap()), Long.toString(s.storeConsumed())) + "\n";
            Files.writeString(Path.of(aux), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
        try {
            if (subject != null) {
                subject.close();
            }
            if (hazelcast != null) {
                BenchCluster.clearMaps(hazelcast);
                // A member has nothing left to hand over: terminating it is as clean as a shutdown, and faster.
                hazelcast.getLifecycleService().terminate();
            }
        } finally {
            BenchCluster.kill(memberJvms);
        }
    }
}
