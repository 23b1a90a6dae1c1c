package dev.sluice.benchmarks;

import dev.sluice.benchmarks.BenchmarkMain.Cell;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Protocol;

/**
 * The regime of real deployments: {@value #DEFAULT_IN_FLIGHT} asynchronous decisions in flight at all times, on
 * 100,000 and 1,000,000 uniform keys, a token bucket that grants, synchronous backup. Not JMH: an open-loop
 * load with a bound of decisions in flight has no natural "operation" for JMH to time, and the client topology
 * needs its load from two JVMs measured over the same window. So this is a plain measured loop
 * ({@link InFlightLoad}) in load JVMs of its own ({@link InflightDriver}), with warm-up, a measured window and
 * rounds, reported like the JMH passes (a {@link Cell} whose threads are the decisions in flight, so ops/s =
 * in flight ÷ mean latency as Little's law has it).
 *
 * <p>Topologies, each a cluster of this pass's own (member JVMs with a heap large enough for a million keys of
 * every contender at once, and for Sluice's default bound to be well above them, ports 6121-6132), run one after
 * the other: {@code embedded}, one load JVM that is a member beside one member JVM, all
 * {@value #DEFAULT_IN_FLIGHT} in flight from it; {@code client}, two member JVMs and two load JVMs, each a client
 * with half the decisions in flight, their rates summed. Redis + Lua through Lettuce ({@link LettuceContender})
 * runs from the same load JVMs (one, then two), on the Redis of {@link RedisContender#PORT}.
 *
 * <p>Before measuring, each load JVM decides once on each of its share of the 1,000,000 keys for every contender
 * (the 100,000 keys are the first of them), so that measured decisions update existing state; the state is kept
 * for the whole topology. Then per round, per key count, every contender in another order each round: a warm-up,
 * then the measured window.
 */
final class InflightPass {
    static final int DEFAULT_IN_FLIGHT = 1024;
    static final List<String> CONTENDERS = List.of("sluice-coalesced", "sluice", "raw", "bucket4j", "redis-lettuce");
    static final String EMBEDDED_CLUSTER = "sluice-bench-inflight-embedded";
    static final String SERVERS_CLUSTER = "sluice-bench-inflight-servers";
    static final int EMBEDDED_EXTERNAL_PORT = 6121;
    static final int EMBEDDED_LOCAL_PORT = 6122;
    static final int[] SERVER_PORTS = {6131, 6132};

    /** One key count's label in the cells and its number. */
    record Keys(String label, int count) {}

    /** Creating every key's state before measuring: per topology and contender, all load JVMs together. */
    record Sweep(String topology, String contender, long decisions, long failures, long millis, long entries) {}

    /** A {@code redis-benchmark} run of the same script, for scale. */
    record Sanity(String setting, double opsPerSecond) {}

    /** What the pass measured: a cell per round, the sweeps and the {@code redis-benchmark} figures. */
    /**
     * What the pass measured: a cell per round, the decisions that failed in each cell's window (by
     * {@link #failedKey}), the sweeps and the {@code redis-benchmark} figures.
     */
    record Result(List<Cell> measured, Map<String, Long> failed, List<Sweep> sweeps, List<Sanity> sanity,
            String settings) {
        static final Result NONE = new Result(List.of(), Map.of(), List.of(), List.of(), "");
    }

    /** The key of a cell's failed decisions in {@link Result#failed}. */
    static String failedKey(Cell c) {
        return BenchmarkMain.auxKey(c) + "|" + c.round();
    }

    private InflightPass() {}

    /** The key counts: {@code -Dsluice.bench.inflight.keys=100000,1000000} (the default). */
    static List<Keys> keyCounts() {
        String spec = System.getProperty("sluice.bench.inflight.keys", "100000,1000000");
        List<Keys> keys = new ArrayList<>();
        for (String k : spec.split(",")) {
            int n = Integer.parseInt(k.trim());
            keys.add(new Keys(n % 1_000_000 == 0 ? n / 1_000_000 + "M" : n % 1_000 == 0 ? n / 1_000 + "k"
                    : Integer.toString(n), n));
        }
        return keys;
    }

    /**
     * Runs the pass: {@code warmupSeconds} of load before each measured window of {@code windowSeconds}, in
     * {@code rounds} rounds. Narrowed like the JMH passes by {@code -Dsluice.bench.only.contender} and
     * {@code .topology}; Redis + Lettuce is left out when {@code redis} is false.
     */
    static Result measure(boolean redis, int warmupSeconds, int windowSeconds, int rounds)
            throws Exception {
        int inFlight = Integer.getInteger("sluice.bench.inflight", DEFAULT_IN_FLIGHT);
        int issuers = Integer.getInteger("sluice.bench.inflight.issuers", 2);
        int redisConnections = Integer.getInteger("sluice.bench.inflight.redis.connections", 1);
        String heap = System.getProperty("sluice.bench.inflight.heap", "3g");
        List<Keys> keys = keyCounts();
        int maxKeys = keys.stream().mapToInt(Keys::count).max().orElseThrow();
        List<String> contenders = only("contender", CONTENDERS).stream()
                .filter(c -> redis || !c.equals("redis-lettuce")).toList();
        List<String> topologies = only("topology", List.of("embedded", "client"));
        String settings = String.format(Locale.ROOT, "%d in flight; %d issuing threads per load JVM; %d Lettuce"
                + " connection%s per load JVM; member and load JVMs -Xmx%s; %d s warm-up and %d s measured per cell;"
                + " %d round%s", inFlight, issuers, redisConnections, redisConnections == 1 ? "" : "s", heap,
                warmupSeconds, windowSeconds, rounds, rounds == 1 ? "" : "s");
        List<Cell> measured = new ArrayList<>();
        Map<String, Long> failed = new LinkedHashMap<>();
        List<Sweep> sweeps = new ArrayList<>();
        List<Sanity> sanity = new ArrayList<>();
        if (contenders.contains("redis-lettuce")) {
            flushRedis();
            sanity.addAll(redisBenchmark());
            flushRedis();
        }
        try {
            for (String topology : topologies) {
                System.out.println("=== pass inflight, " + topology + " ===");
                runTopology(topology, contenders, keys, maxKeys, inFlight, issuers, redisConnections, heap,
                        warmupSeconds, windowSeconds, rounds, measured, failed, sweeps);
            }
        } finally {
            if (contenders.contains("redis-lettuce")) {
                try {
                    flushRedis();
                } catch (RuntimeException e) { // what was measured stands; the next run flushes before it starts
                    System.out.println("could not empty Redis after the pass: " + e);
                }
            }
        }
        return new Result(measured, failed, sweeps, sanity, settings);
    }

    private static List<String> only(String param, List<String> all) {
        String only = System.getProperty("sluice.bench.only." + param);
        return only == null ? all : Arrays.stream(only.split(",")).filter(all::contains).distinct().toList();
    }

    private static void runTopology(String topology, List<String> contenders, List<Keys> keys, int maxKeys,
            int inFlight, int issuers, int redisConnections, String heap, int warmupSeconds, int windowSeconds,
            int rounds, List<Cell> measured, Map<String, Long> failed, List<Sweep> sweeps) throws Exception {
        List<Process> members = new ArrayList<>();
        List<Driver> drivers = new ArrayList<>();
        try {
            boolean embedded = topology.equals("embedded");
            int driverCount = embedded ? 1 : 2;
            if (inFlight % driverCount != 0) {
                throw new IllegalArgumentException("in flight " + inFlight + " must divide among " + driverCount
                        + " load JVMs");
            }
            String addresses;
            if (embedded) {
                members.addAll(BenchCluster.startMemberJvms(heap, EMBEDDED_CLUSTER, EMBEDDED_EXTERNAL_PORT));
                addresses = "127.0.0.1:" + EMBEDDED_LOCAL_PORT + ",127.0.0.1:" + EMBEDDED_EXTERNAL_PORT;
            } else {
                members.addAll(BenchCluster.startMemberJvms(heap, SERVERS_CLUSTER, SERVER_PORTS));
                addresses = "127.0.0.1:" + SERVER_PORTS[0] + ",127.0.0.1:" + SERVER_PORTS[1];
            }
            for (int i = 0; i < driverCount; i++) {
                drivers.add(Driver.start(heap, topology, embedded ? EMBEDDED_CLUSTER : SERVERS_CLUSTER, addresses, i,
                        driverCount, inFlight / driverCount, maxKeys, issuers, redisConnections));
            }
            for (String contender : contenders) {
                // Both Sluice contenders decide on the same limiter and keys: the coalesced one's sweep serves both.
                // Redis keeps its keys from one topology to the next (the same server): swept once.
                if (contender.equals("sluice") && contenders.contains("sluice-coalesced")
                        || contender.equals("redis-lettuce") && sweeps.stream().anyMatch(w -> w.contender().equals(contender))) {
                    continue;
                }
                long start = System.nanoTime();
                List<String[]> answers = all(drivers, "SWEEP " + contender, "SWEPT");
                long decisions = 0;
                long failures = 0;
                for (String[] a : answers) {
                    decisions += Long.parseLong(a[2]);
                    failures += Long.parseLong(a[3]);
                }
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                drivers.get(0).send("COUNT " + contender);
                long entries = Long.parseLong(drivers.get(0).await("COUNTED")[2]);
                Sweep sweep = new Sweep(topology, contender, decisions, failures, millis, entries);
                System.out.println("swept " + sweep);
                sweeps.add(sweep);
            }
            for (int round = 0; round < rounds; round++) {
                List<String> order = new ArrayList<>(contenders);
                Collections.rotate(order, -round);
                for (Keys k : keys) {
                    for (String contender : order) {
                        List<String[]> answers = all(drivers, String.format(Locale.ROOT, "RUN %s %d %d %d", contender,
                                k.count(), warmupSeconds * 1000L, windowSeconds * 1000L), "RESULT");
                        Cell cell = cell(contender, topology, k.label(), inFlight, answers, round);
                        failed.put(failedKey(cell), answers.stream().mapToLong(a -> Long.parseLong(a[5])).sum());
                        System.out.printf(Locale.ROOT, "round %d %s %s %s: %,.0f ops/s, p50 %.0f µs, p99 %.0f µs%n",
                                round + 1, topology, k.label(), contender, cell.opsPerSecond(), cell.p50(), cell.p99());
                        measured.add(cell);
                    }
                }
            }
            for (Driver d : drivers) {
                d.send("EXIT");
            }
        } finally {
            for (Driver d : drivers) {
                d.stop();
            }
            BenchCluster.kill(members);
        }
    }

    /**
     * The load JVMs' answers summed: ops/s over their windows (which start together, within the time it takes to
     * write a line to each), percentiles the worse of them. A cell's mean is in flight ÷ ops/s (Little's law), so
     * that {@link Cell#opsPerSecond()} is the measured rate.
     */
    static Cell cell(String contender, String topology, String keys, int inFlight, List<String[]> answers, int round) {
        double ops = 0;
        long completed = 0;
        double p50 = 0;
        double p99 = 0;
        double p999 = 0;
        for (String[] a : answers) {
            long done = Long.parseLong(a[2]);
            ops += done / (Long.parseLong(a[3]) / 1e9);
            completed += done;
            p50 = Math.max(p50, Double.parseDouble(a[6]));
            p99 = Math.max(p99, Double.parseDouble(a[7]));
            p999 = Math.max(p999, Double.parseDouble(a[8]));
        }
        return new Cell(contender, topology, keys, "grant", "token-bucket", "REPLICATED", inFlight, inFlight * 1e6 / ops,
                p50, p99, p999, completed, round);
    }

    /** Sends {@code command} to every load JVM, then reads each one's answer, which must start with {@code tag}. */
    private static List<String[]> all(List<Driver> drivers, String command, String tag) throws IOException {
        for (Driver d : drivers) {
            d.send(command);
        }
        List<String[]> answers = new ArrayList<>();
        for (Driver d : drivers) {
            answers.add(d.await(tag));
        }
        return answers;
    }

    /** One load JVM, spoken to over its standard input and output. */
    private static final class Driver {
        private final Process process;
        private final PrintWriter in;
        private final BufferedReader out;
        private final Path log;

        private Driver(Process process, Path log) {
            this.process = process;
            this.log = log;
            this.in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        static Driver start(String heap, String topology, String cluster, String addresses, int index, int drivers,
                int inFlight, int maxKeys, int issuers, int redisConnections) throws IOException {
            List<String> command = new ArrayList<>();
            command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
            command.addAll(List.of("-Xmx" + heap, "-XX:+UseParallelGC"));
            command.addAll(BenchCluster.HAZELCAST_OPENS);
            String timeout = System.getProperty(InflightDriver.DECISION_TIMEOUT_PROPERTY);
            if (timeout != null) {
                command.add("-D" + InflightDriver.DECISION_TIMEOUT_PROPERTY + "=" + timeout);
            }
            String extra = System.getProperty("sluice.bench.inflight.jvmOptions", "").trim();
            if (!extra.isEmpty()) { // a profiler's, say: -XX:StartFlightRecording=filename=driver.jfr
                command.addAll(Arrays.asList(extra.replace("{index}", Integer.toString(index)).split("\\s+")));
            }
            if (!BenchCluster.capacityBound()) {
                command.add("-D" + BenchCluster.CAPACITY_PROPERTY + "=off");
            }
            command.addAll(List.of("-Dhazelcast.phone.home.enabled=false", "-Dhazelcast.logging.type=none",
                    "-cp", System.getProperty("java.class.path"), InflightDriver.class.getName(), topology, cluster,
                    addresses, Integer.toString(index), Integer.toString(drivers), Integer.toString(inFlight),
                    Integer.toString(maxKeys), Integer.toString(issuers), Integer.toString(RedisContender.PORT),
                    Integer.toString(redisConnections)));
            Path log = Files.createTempFile("sluice-inflight-driver-" + index + "-", ".log");
            Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
            Driver driver = new Driver(process, log);
            driver.await(InflightDriver.READY);
            return driver;
        }

        void send(String command) {
            in.println(command);
        }

        String[] await(String tag) throws IOException {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith(tag)) {
                    return line.split(" ");
                }
                if (line.startsWith("ERROR")) {
                    throw new IllegalStateException("load JVM failed: " + line + "; its stderr: " + log);
                }
            }
            throw new IllegalStateException("load JVM exited while " + tag + " was awaited; its stderr: " + log);
        }

        void stop() {
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                } else if (process.exitValue() == 0) {
                    Files.deleteIfExists(log); // kept after a failure, whose message names it
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            } catch (IOException ignored) {
                // a log left in the temporary directory
            }
        }
    }

    /**
     * Deletes every key of the Redis the pass uses (the benchmark owns it), in the background of the server: a
     * million keys take longer to delete than a client's default timeout on a busy machine.
     */
    private static void flushRedis() {
        try (JedisPooled redis = new JedisPooled(new HostAndPort(RedisContender.HOST, RedisContender.PORT),
                DefaultJedisClientConfig.builder().socketTimeoutMillis(60_000).build())) {
            redis.sendCommand(Protocol.Command.FLUSHALL, "ASYNC");
        }
    }

    /**
     * {@code redis-benchmark} (when installed) running the same script with the same arguments on 100,000 random
     * keys, 64 connections, one call at a time and 16 pipelined on each (1,024 in flight), after an unreported run
     * that creates the keys: what Redis does for a client written in C, for scale.
     */
    static List<Sanity> redisBenchmark() {
        List<Sanity> rows = new ArrayList<>();
        String sha;
        try (JedisPooled redis = new JedisPooled(RedisContender.HOST, RedisContender.PORT)) {
            sha = redis.scriptLoad(RedisContender.SCRIPT);
        }
        try {
            run(sha, 16, 200_000);
            rows.add(new Sanity("64 connections, one call at a time", run(sha, 1, 200_000)));
            rows.add(new Sanity("64 connections × 16 pipelined (1,024 in flight)", run(sha, 16, 500_000)));
        } catch (IOException e) {
            System.out.println("redis-benchmark not run: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return rows;
    }

    private static double run(String sha, int pipeline, int requests) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-benchmark", "-h", RedisContender.HOST, "-p",
                Integer.toString(RedisContender.PORT), "-c", "64", "-n", Integer.toString(requests), "-r", "100000",
                "-P", Integer.toString(pipeline), "-q", "EVALSHA", sha, "1", "open/__rand_int__"));
        command.addAll(LettuceContender.openArgs());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        // -q prints progress lines ending in \r, then the result: "EVALSHA ...: 122000.00 requests per second, ..."
        int at = output.lastIndexOf(" requests per second");
        if (at < 0) {
            throw new IOException("no rate in redis-benchmark's output: " + output.strip());
        }
        int from = output.lastIndexOf(' ', at - 1) + 1;
        return Double.parseDouble(output.substring(from, at));
    }
}
