package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.util.ConcurrencyUtil;
import com.hazelcast.map.IMap;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimiterOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.JedisPooled;

/**
 * A load JVM of the in-flight pass ({@link InflightPass}): a member of the embedded cluster or a client of the
 * servers, holding its contenders (built on first use, with their state kept across cells) and driving one at a
 * time with {@link InFlightLoad}, as the coordinator says on standard input, one command a line:
 * <pre>
 * SWEEP contender               one decision on each of this driver's share of the keys (k mod drivers = index)
 * COUNT contender               the entries the contender's store holds (its map, or Redis's keys)
 * RUN contender keys warmupMs windowMs   load on keys 0..keys-1: warm-up, then a measured window
 * EXIT
 * </pre>
 * Answers on standard output: {@value #READY}, {@code SWEPT contender decisions failures ms},
 * {@code COUNTED contender entries}, {@code RESULT contender completed nanos granted failed p50 p99 p999} (counts of
 * the measured window; µs), or {@code ERROR message}.
 *
 * <p>Arguments: {@code topology cluster addresses index drivers inFlight maxKeys issuers redisPort redisConnections};
 * for {@code embedded} the first address is this member's own.
 */
public final class InflightDriver {
    static final String READY = "INFLIGHT-DRIVER-READY";
    /** Sluice's decision timeout in this load JVM, in milliseconds; the default's when unset. */
    static final String DECISION_TIMEOUT_PROPERTY = "sluice.bench.inflight.decisionTimeoutMillis";

    private final HazelcastInstance hazelcast;
    private final int index;
    private final int drivers;
    private final int inFlight;
    private final int maxKeys;
    private final int issuers;
    private final int redisPort;
    private final int redisConnections;
    private final Map<String, Contender> contenders = new LinkedHashMap<>();
    /** A key of each partition, for {@link #awaitIdleMembers}. */
    private String[] barrierKeys;

    private InflightDriver(HazelcastInstance hazelcast, int index, int drivers, int inFlight, int maxKeys, int issuers,
            int redisPort, int redisConnections) {
        this.hazelcast = hazelcast;
        this.index = index;
        this.drivers = drivers;
        this.inFlight = inFlight;
        this.maxKeys = maxKeys;
        this.issuers = issuers;
        this.redisPort = redisPort;
        this.redisConnections = redisConnections;
    }

    public static void main(String[] args) throws Exception {
        String topology = args[0];
        String cluster = args[1];
        List<String> addresses = Arrays.asList(args[2].split(","));
        HazelcastInstance hz;
        if (topology.equals("embedded")) {
            int port = Integer.parseInt(addresses.get(0).substring(addresses.get(0).lastIndexOf(':') + 1));
            hz = BenchCluster.member(cluster, port, addresses);
            BenchCluster.awaitSafe(hz, addresses.size());
        } else {
            hz = BenchCluster.client(cluster, addresses);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (hz.getCluster().getMembers().size() < addresses.size() && System.nanoTime() < deadline) {
                BenchCluster.sleep(20);
            }
        }
        InflightDriver driver = new InflightDriver(hz, Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                Integer.parseInt(args[5]), Integer.parseInt(args[6]), Integer.parseInt(args[7]),
                Integer.parseInt(args[8]), Integer.parseInt(args[9]));
        int status = 0;
        try {
            driver.serve();
        } catch (Throwable t) {
            System.out.println("ERROR " + t.toString().replace('\n', ' '));
            status = 1;
        } finally {
            driver.contenders.values().forEach(Contender::close);
            hz.getLifecycleService().terminate();
        }
        System.out.flush();
        System.exit(status);
    }

    private void serve() throws Exception {
        System.out.println(READY);
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] c = line.trim().split(" ");
            switch (c[0]) {
                case "SWEEP" -> System.out.println(sweep(c[1]));
                case "COUNT" -> System.out.println("COUNTED " + c[1] + " " + entries(c[1]));
                case "RUN" -> System.out.println(run(c[1], Integer.parseInt(c[2]), Long.parseLong(c[3]),
                        Long.parseLong(c[4])));
                case "EXIT" -> {
                    return;
                }
                default -> throw new IllegalArgumentException("unknown command '" + line + "'");
            }
            System.out.flush();
        }
    }

    /**
     * Set-up runs Hazelcast's completions on a small pool: Bucket4j's first decision on a key makes a second call
     * from its continuation, which must not run on a partition thread.
     */
    private String sweep(String name) throws InterruptedException {
        Contender contender = contender(name);
        ExecutorService pool = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "sweep-completions");
            t.setDaemon(true);
            return t;
        });
        ConcurrencyUtil.setDefaultAsyncExecutor(pool);
        try {
            long start = System.nanoTime();
            long failures = InFlightLoad.sweep(contender, index, maxKeys, drivers, inFlight);
            long decisions = (maxKeys - index + drivers - 1) / drivers;
            return String.format(Locale.ROOT, "SWEPT %s %d %d %d", name, decisions, failures,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        } finally {
            ConcurrencyUtil.setDefaultAsyncExecutor(ConcurrencyUtil.CALLER_RUNS);
            pool.shutdown();
        }
    }

    /**
     * Hazelcast's own futures (the raw floor's, Bucket4j's) run dependent actions on its default async executor,
     * which on a 2-core host starts a thread per action; so while measuring they run where the answer arrives, as
     * Lettuce's do on its event loop. Sluice completes on its own callback pool whatever this says.
     */
    private String run(String name, int keys, long warmupMillis, long windowMillis) throws InterruptedException {
        if (keys > maxKeys) {
            throw new IllegalArgumentException("keys " + keys + " above this driver's " + maxKeys);
        }
        Contender contender = contender(name);
        ConcurrencyUtil.setDefaultAsyncExecutor(ConcurrencyUtil.CALLER_RUNS);
        InFlightLoad load = new InFlightLoad(contender, keys, inFlight, issuers);
        long completed;
        long granted;
        long failed;
        long nanos;
        try {
            Thread.sleep(warmupMillis);
            long f0 = load.failed();
            load.sampling(true);
            long c0 = load.completed();
            long g0 = load.granted();
            long t0 = System.nanoTime();
            Thread.sleep(windowMillis);
            completed = load.completed() - c0;
            granted = load.granted() - g0;
            failed = load.failed() - f0;
            nanos = System.nanoTime() - t0;
            load.sampling(false);
        } finally {
            load.close();
            awaitIdleMembers();
        }
        if (load.firstFailure() != null) { // counted, not fatal: an overloaded machine times decisions out
            System.err.println(name + ": " + load.failed() + " decisions failed, the first with " + load.firstFailure());
        }
        double[] p = load.percentilesMicros();
        return String.format(Locale.ROOT, "RESULT %s %d %d %d %d %.1f %.1f %.1f", name, completed, nanos, granted,
                failed, p[0], p[1], p[2]);
    }

    /**
     * Waits until every partition has run what was queued on it before now: one operation on a key of each
     * partition, each answered only once its partition thread has worked through the operations ahead of it. A
     * decision abandoned at its timeout (Sluice's, 1 s) still runs on its owner, so on an overloaded machine a cell
     * can leave a backlog there that the next cell would otherwise wait behind.
     */
    private void awaitIdleMembers() {
        if (barrierKeys == null) {
            int partitions = hazelcast.getPartitionService().getPartitions().size();
            String[] keys = new String[partitions];
            int found = 0;
            for (int i = 0; found < partitions; i++) {
                String key = "barrier-" + i;
                int partition = hazelcast.getPartitionService().getPartition(key).getPartitionId();
                if (keys[partition] == null) {
                    keys[partition] = key;
                    found++;
                }
            }
            barrierKeys = keys;
        }
        IMap<String, Long> map = hazelcast.getMap(BenchCluster.RAW_EPHEMERAL);
        List<CompletableFuture<Long>> answers = new ArrayList<>();
        for (String key : barrierKeys) {
            answers.add(map.submitToKey(key, new RawCounterProcessor(true, false)).toCompletableFuture());
        }
        CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])).orTimeout(10, TimeUnit.MINUTES).join();
    }

    /** How many entries the contender's store holds: after set-up, one per key unless a bound got in the way. */
    private long entries(String name) {
        return switch (name) {
            case "sluice-coalesced", "sluice" -> hazelcast.getMap(SluiceHazelcast.DEFAULT_MAP_NAME).size();
            case "raw" -> hazelcast.getMap(BenchCluster.RAW).size();
            case "bucket4j" -> hazelcast.getMap(BenchCluster.BUCKET4J).size();
            case "redis-lettuce" -> {
                try (JedisPooled redis = new JedisPooled(RedisContender.HOST, redisPort)) {
                    yield redis.dbSize();
                }
            }
            default -> throw new IllegalArgumentException("unknown contender " + name);
        };
    }

    private Contender contender(String name) {
        return contenders.computeIfAbsent(name, this::newContender);
    }

    /** Both Sluice contenders decide on the same limiter name, so they share state (one sweep serves both). */
    private Contender newContender(String name) {
        LimiterOptions.Builder options = LimiterOptions.builder().durability(Durability.REPLICATED);
        String timeoutMillis = System.getProperty(DECISION_TIMEOUT_PROPERTY); // handed on by the pass
        if (timeoutMillis != null) {
            try {
                options.decisionTimeout(Duration.ofMillis(Long.parseLong(timeoutMillis.trim())));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-D" + DECISION_TIMEOUT_PROPERTY + "=" + timeoutMillis
                        + ": expected a whole number of milliseconds", e);
            }
        }
        LimiterOptions replicated = options.build();
        return switch (name) {
            case "sluice-coalesced", "sluice" -> new SluiceContender(HazelcastRateLimiters.create(hazelcast,
                    name.equals("sluice") ? Coalescing.disabled() : Coalescing.on()), true, maxKeys,
                    SluiceContender.openSpec("token-bucket"), SluiceContender.closedSpec("token-bucket"), replicated,
                    key -> true);
            case "raw" -> new RawContender(hazelcast, false, true, maxKeys, key -> true);
            case "bucket4j" -> new Bucket4jContender(hazelcast, true, maxKeys, key -> true);
            case "redis-lettuce" -> new LettuceContender(maxKeys, redisConnections, redisPort);
            default -> throw new IllegalArgumentException("unknown contender " + name);
        };
    }
}
