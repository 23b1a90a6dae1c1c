package dev.sluice.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs the whole comparison and writes a markdown report:
 * <pre>{@code
 * java -jar benchmarks/target/benchmarks.jar [--smoke] [--out FILE] [--warmup N] [--iterations N] [--seconds S]
 * }</pre>
 * It starts the member JVMs once (one for the embedded topology, two for client-server; ports
 * 6101-6199), runs {@link DecisionBench} pass by pass through JMH's {@link Runner}, measures memory per
 * idle key, kills the members and writes the report ({@code benchmarks/target/benchmark-report.md}
 * unless {@code --out} says otherwise). {@code --smoke}: the in-process backend and Sluice and the raw
 * processor on a single embedded member, one short iteration each (used by {@code mvn verify}).
 */
public final class BenchmarkMain {
    private static final List<String> ALGORITHMS = List.of("token-bucket", "fixed-window", "sliding-window",
            "sliding-log", "sliding-counter", "gcra", "concurrency", "all-of");

    /**
     * One JMH invocation: a parameter cross product at some thread counts. {@code repeated}: the goals are
     * judged on it, so it runs every round, its contenders in another order each time.
     */
    record Pass(String name, Map<String, List<String>> params, List<Integer> threads, boolean repeated) {
        Pass(String name, Map<String, List<String>> params, List<Integer> threads) {
            this(name, params, threads, false);
        }

        /** This pass with its contenders (and durabilities, where it has several) rotated left by {@code by}. */
        Pass rotated(int by) {
            Map<String, List<String>> p = new LinkedHashMap<>(params);
            for (String rotating : List.of("contender", "durability")) {
                if (p.containsKey(rotating)) {
                    List<String> values = new ArrayList<>(p.get(rotating));
                    java.util.Collections.rotate(values, -by);
                    p.put(rotating, values);
                }
            }
            return new Pass(name, p, threads, repeated);
        }
    }

    /** One measured cell. */
    /**
     * One measured cell; with several rounds, the round of median ops/s, with the lowest and highest ops/s of
     * every round and the round it was measured in.
     */
    record Cell(String contender, String topology, String keys, String outcome, String algorithm, String durability,
            int threads, double meanMicros, double p50, double p99, double p999, long samples, double minOps,
            double maxOps, int rounds, int round) {
        Cell(String contender, String topology, String keys, String outcome, String algorithm, String durability,
                int threads, double meanMicros, double p50, double p99, double p999, long samples, int round) {
            this(contender, topology, keys, outcome, algorithm, durability, threads, meanMicros, p50, p99, p999, samples,
                    threads * 1e6 / meanMicros, threads * 1e6 / meanMicros, 1, round);
        }

        double opsPerSecond() {
            return threads * 1e6 / meanMicros;
        }

        Cell withSpread(double min, double max, int n) {
            return new Cell(contender, topology, keys, outcome, algorithm, durability, threads, meanMicros, p50, p99,
                    p999, samples, min, max, n, round);
        }

        String setting() {
            return topology + "|" + keys + "|" + outcome + "|" + threads;
        }
    }

    private final boolean smoke;
    private final Path out;
    private final int warmup;
    private final int iterations;
    private final int seconds;
    /** Rounds of the repeated passes (and of the CPU pass); the report shows medians and spreads. */
    private int rounds = 3;
    private final List<String> jvmArgs = new ArrayList<>();
    private final Path aux;
    private List<String> only = List.of();
    private List<Integer> onlyThreads = List.of();
    private String profiler;
    /** A Redis primary with an asynchronous replica runs ({@link RedisReplica}): the durability pass has its peer. */
    private boolean redisReplica;
    /** What the in-flight pass measured ({@link InflightPass}), rendered after the JMH passes' report. */
    private InflightPass.Result inflight = InflightPass.Result.NONE;

    private BenchmarkMain(boolean smoke, Path out, int warmup, int iterations, int seconds) throws IOException {
        this.smoke = smoke;
        this.out = out;
        this.warmup = warmup;
        this.iterations = iterations;
        this.seconds = seconds;
        this.aux = Files.createTempFile("sluice-bench-aux", ".tsv");
    }

    public static void main(String[] args) throws Exception {
        boolean smoke = false;
        Path out = Path.of("benchmarks", "target", "benchmark-report.md");
        int warmup = 2;
        int iterations = 2;
        int seconds = 1;
        List<String> only = List.of();
        List<Integer> onlyThreads = List.of();
        String profiler = null;
        int rounds = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--smoke": smoke = true; break;
                case "--out": out = Path.of(args[++i]); break;
                case "--warmup": warmup = Integer.parseInt(args[++i]); break;
                case "--iterations": iterations = Integer.parseInt(args[++i]); break;
                case "--seconds": seconds = Integer.parseInt(args[++i]); break;
                case "--passes": only = List.of(args[++i].split(",")); break;
                case "--threads": onlyThreads = java.util.Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
                    break;
                case "--prof": profiler = args[++i]; break;
                case "--rounds": rounds = Integer.parseInt(args[++i]); break;
                default: throw new IllegalArgumentException("unknown argument " + args[i] + "; use [--smoke] [--out FILE]"
                        + " [--warmup N] [--iterations N] [--seconds S] [--passes a,b] [--threads 1,8] [--rounds N] [--prof gc|stack|jfr[:options]]");
            }
        }
        BenchmarkMain main = new BenchmarkMain(smoke, out, warmup, iterations, seconds);
        main.only = only;
        main.onlyThreads = onlyThreads;
        main.profiler = profiler;
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be at least 1, was " + rounds);
        }
        main.rounds = rounds;
        String report = main.run(String.join(" ", args));
        System.out.println(report);
    }

    /** Runs the smoke mode and returns its report (for the test run by {@code mvn verify}). */
    static String smoke(Path out) throws Exception {
        // Another build on the machine may run its smoke at the same time: free ports for every member, and JMH's
        // machine-wide lock (which keeps real measurements apart) ignored.
        System.setProperty(BenchCluster.FREE_PORTS_PROPERTY, "true");
        System.setProperty("jmh.ignoreLock", "true");
        BenchmarkMain main = new BenchmarkMain(true, out, 1, 1, 1);
        main.rounds = 1;
        return main.run("--smoke");
    }

    private String run(String argLine) throws Exception {
        long started = System.nanoTime();
        String loadBefore = loadAverage();
        ZonedDateTime date = ZonedDateTime.now();
        jvmArgs.addAll(List.of("-Xmx1g", "-XX:+UseParallelGC", "-Dhazelcast.phone.home.enabled=false",
                "-Dhazelcast.logging.type=none", "-D" + DecisionBench.AUX_PROPERTY + "=" + aux));
        jvmArgs.addAll(BenchCluster.HAZELCAST_OPENS);
        if (!BenchCluster.capacityBound()) {
            jvmArgs.add("-D" + BenchCluster.CAPACITY_PROPERTY + "=off");
        }
        List<Process> members = new ArrayList<>();
        List<Cell> cells = new ArrayList<>();
        List<MemoryPerKey.Row> memory = List.of();
        boolean redis = !smoke && RedisContender.available();
        // The cheapest, most robust evidence first; the report is rewritten after every pass, so an
        // interrupted run still leaves what it measured.
        List<CpuPerDecision.Row> cpu = only.isEmpty() || only.contains("cpu")
                ? CpuPerDecision.measure(smoke ? 500 : Integer.getInteger("sluice.bench.cpu.keys", 20_000), smoke ? 400 : Integer.getInteger("sluice.bench.cpu.decisions", 30_000),
                        rounds)
                : List.of();
        List<Cell> measured = new ArrayList<>();
        String report = write(date, argLine, started, loadBefore, redis, cells, measured, memory, cpu);
        // Equal durability: Redis with an asynchronous replica, started here (and stopped below) when wanted.
        java.util.Optional<RedisReplica> replica = !smoke && (only.isEmpty() || only.contains("redis-replica"))
                ? RedisReplica.start() : java.util.Optional.empty();
        redisReplica = replica.isPresent();
        try {
            List<Pass> passes = passes(redis).stream().filter(p -> only.isEmpty() || only.contains(p.name())).toList();
            if (smoke) {
                jvmArgs.add("-D" + DecisionBench.EMBEDDED_PROPERTY + "=solo:" + BenchCluster.port(6141));
                jvmArgs.add("-D" + BenchCluster.FREE_PORTS_PROPERTY + "=" + Boolean.getBoolean(BenchCluster.FREE_PORTS_PROPERTY));
            } else if (!passes.isEmpty()) { // none for the passes outside JMH alone (cpu, memory, inflight)
                members.addAll(BenchCluster.startMemberJvms(DecisionBench.EMBEDDED_CLUSTER,
                        DecisionBench.EMBEDDED_EXTERNAL_PORT));
                members.addAll(BenchCluster.startMemberJvms(DecisionBench.SERVERS_CLUSTER, DecisionBench.SERVER_PORTS));
                jvmArgs.add("-D" + DecisionBench.EMBEDDED_PROPERTY + "=127.0.0.1:" + DecisionBench.EMBEDDED_EXTERNAL_PORT);
                StringBuilder servers = new StringBuilder();
                for (int port : DecisionBench.SERVER_PORTS) {
                    servers.append(servers.length() == 0 ? "" : ",").append("127.0.0.1:").append(port);
                }
                jvmArgs.add("-D" + DecisionBench.SERVERS_PROPERTY + "=" + servers);
            }
            if (!smoke && passes.stream().anyMatch(p -> !p.name().equals("local"))) {
                // Unreported: the first cells of a run met members whose JIT and heap had not settled, and
                // ran at a third of the same cell later in the run (whichever contender drew the slot)
                System.out.println("=== warm-up (not reported) ===");
                run(new Pass("warm-up", params(List.of("sluice", "sluice-coalesced", "raw", "bucket4j"),
                        List.of("embedded", "client"), List.of("uniform"), List.of("grant")),
                        List.of(onlyThreads.isEmpty() ? 32 : onlyThreads.get(onlyThreads.size() - 1))), 0, 1, 1, 1);
            }
            // Round by round, the repeated passes each time in another contender order (a contender that ran
            // first in one round runs last in another); the others once, in the first round.
            for (int round = 0; round < rounds; round++) {
                for (Pass pass : passes) {
                    if (round > 0 && !pass.repeated()) {
                        continue;
                    }
                    System.out.println("=== pass " + pass.name() + (pass.repeated() ? ", round " + (round + 1) + " of "
                            + rounds : "") + " ===");
                    measured.addAll(run(pass.rotated(round), round, warmup, iterations, seconds));
                    cells = medians(measured);
                    report = write(date, argLine, started, loadBefore, redis, cells, measured, memory, cpu);
                }
            }
        } finally {
            BenchCluster.kill(members);
            replica.ifPresent(RedisReplica::close);
        }
        // Its own clusters and load JVMs, started once the JMH passes' members are gone
        if (!smoke && (only.isEmpty() || only.contains("inflight"))) {
            inflight = InflightPass.measure(redis, warmup, iterations * seconds, rounds);
            measured.addAll(inflight.measured());
            cells = medians(measured);
            report = write(date, argLine, started, loadBefore, redis, cells, measured, memory, cpu);
        }
        if (only.isEmpty() || only.contains("memory")) {
            memory = MemoryPerKey.measure(smoke ? 2_000 : 100_000);
            report = write(date, argLine, started, loadBefore, redis, cells, measured, memory, cpu);
        }
        Files.deleteIfExists(aux);
        return report;
    }

    private String write(ZonedDateTime date, String argLine, long started, String loadBefore, boolean redis,
            List<Cell> cells, List<Cell> measured, List<MemoryPerKey.Row> memory, List<CpuPerDecision.Row> cpu)
            throws IOException {
        long elapsedSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        String report = Report.render(new Report.Context(date.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name") + " "
                + System.getProperty("java.runtime.version"), System.getProperty("os.name") + " "
                + System.getProperty("os.arch"), loadBefore, loadAverage(), elapsedSeconds,
                "java -jar benchmarks/target/benchmarks.jar " + argLine, warmup, iterations, seconds, rounds, redis,
                smoke), cells, measured, memory, cpu, readAux()) + InflightReport.render(cells, measured, inflight);
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        Files.writeString(out, report, StandardCharsets.UTF_8);
        return report;
    }

    private List<Pass> passes(boolean redis) {
        List<Pass> passes = new ArrayList<>();
        if (smoke) {
            passes.add(new Pass("smoke in-process", params(List.of("local"), List.of("none"), List.of("uniform"),
                    List.of("grant")), List.of(2)));
            passes.add(new Pass("smoke embedded", params(List.of("sluice", "raw"), List.of("embedded"),
                    List.of("uniform"), List.of("grant")), List.of(2)));
            return passes;
        }
        List<String> both = List.of("embedded", "client");
        List<String> keys = List.of("hot", "uniform");
        // Grants carry the comparison (every contender writes and backs up); refusals are the cheap case,
        // measured at 32 threads, with the CPU pass as the steadier figure.
        passes.add(new Pass("peers", params(List.of("sluice", "sluice-coalesced", "raw", "bucket4j",
                "sluice-allowance"), both, keys, List.of("grant")), List.of(1, 8, 32), true));
        passes.add(new Pass("refusals", params(List.of("sluice", "sluice-coalesced", "raw", "bucket4j"), both,
                List.of("uniform"), List.of("refuse")), List.of(32), true));
        if (redis) {
            passes.add(new Pass("redis", params(List.of("redis"), List.of("none"), keys, List.of("grant", "refuse")),
                    List.of(1, 8, 32), true));
        }
        Map<String, List<String>> ephemeral = params(List.of("sluice", "raw"), both, List.of("uniform"),
                List.of("grant"));
        ephemeral.put("durability", List.of("EPHEMERAL"));
        passes.add(new Pass("ephemeral", ephemeral, List.of(32)));
        passes.add(new Pass("async", params(List.of("sluice-async", "sluice-coalesced-async", "raw-async",
                "bucket4j-async"), both, List.of("uniform"), List.of("grant")), List.of(32)));
        passes.add(new Pass("local", params(List.of("local"), List.of("none"), List.of("uniform"),
                List.of("grant", "refuse")), List.of(1, 8, 32)));
        Map<String, List<String>> algorithms = params(List.of("sluice"), List.of("embedded"), List.of("uniform"),
                List.of("grant"));
        // The token bucket too, so that this pass alone has each algorithm's ratio to it, from the same run.
        algorithms.put("algorithm", ALGORITHMS);
        passes.add(new Pass("algorithms", algorithms, List.of(8)));

        // Equal durability: the asynchronous backup beside no backup, and Redis with its asynchronous replica,
        // every round, so that their ratios are taken within a run.
        Map<String, List<String>> durability = params(List.of("sluice-coalesced"), both, List.of("uniform"),
                List.of("grant"));
        durability.put("durability", List.of("REPLICATED_ASYNC", "EPHEMERAL"));
        passes.add(new Pass("durability", durability, List.of(32), true));
        if (redisReplica) {
            passes.add(new Pass("redis-replica", params(List.of("redis-replica"), List.of("none"), List.of("uniform"),
                    List.of("grant")), List.of(32), true));
        }
        return passes;
    }

    private static Map<String, List<String>> params(List<String> contenders, List<String> topologies,
            List<String> keys, List<String> outcomes) {
        Map<String, List<String>> p = new LinkedHashMap<>();
        p.put("contender", contenders);
        p.put("topology", topologies);
        p.put("keys", keys);
        p.put("outcome", outcomes);
        return p;
    }

    /**
     * Per cell of every round, the round of median ops/s (of an even count, the lower middle one), with the
     * spread of all rounds; in the order the cells were first measured.
     */
    static List<Cell> medians(List<Cell> measured) {
        Map<String, List<Cell>> byCell = new LinkedHashMap<>();
        for (Cell c : measured) {
            byCell.computeIfAbsent(auxKey(c), k -> new ArrayList<>()).add(c);
        }
        List<Cell> cells = new ArrayList<>();
        for (List<Cell> runs : byCell.values()) {
            List<Cell> sorted = runs.stream().sorted(java.util.Comparator.comparingDouble(Cell::opsPerSecond)).toList();
            cells.add(sorted.get((sorted.size() - 1) / 2).withSpread(sorted.get(0).opsPerSecond(),
                    sorted.get(sorted.size() - 1).opsPerSecond(), sorted.size()));
        }
        return cells;
    }

    private List<Cell> run(Pass pass, int round, int warmup, int iterations, int seconds) throws RunnerException {
        List<Cell> cells = new ArrayList<>();
        for (int threads : pass.threads()) {
            if (!onlyThreads.isEmpty() && !onlyThreads.contains(threads)) {
                continue;
            }
            ChainedOptionsBuilder options = new OptionsBuilder()
                    .include(DecisionBench.class.getName() + ".decide")
                    .forks(1)
                    .threads(threads)
                    .warmupIterations(warmup)
                    .warmupTime(TimeValue.seconds(1))
                    .measurementIterations(iterations)
                    .measurementTime(TimeValue.seconds(seconds))
                    .jvmArgs(jvmArgs.toArray(new String[0]))
                    .shouldFailOnError(true)
                    .verbosity(smoke ? VerboseMode.SILENT : VerboseMode.NORMAL);
            if (profiler != null) { // "jfr:configName=/path/to.jfc": JMH's own name:options form
                int colon = profiler.indexOf(':');
                if (colon < 0) {
                    options.addProfiler(profiler);
                } else {
                    options.addProfiler(profiler.substring(0, colon), profiler.substring(colon + 1));
                }
            }
            boolean empty = false;
            for (Map.Entry<String, List<String>> p : pass.params().entrySet()) {
                // -Dsluice.bench.only.contender=raw,sluice (or .topology, .keys, .outcome): a subset of a pass,
                // run in the order given (JMH keeps a parameter's order), so that runs can rotate the order
                // and no contender always draws the first, coldest slot
                String only = System.getProperty("sluice.bench.only." + p.getKey());
                List<String> values = only == null ? p.getValue()
                        : List.of(only.split(",")).stream().filter(p.getValue()::contains).distinct().toList();
                empty |= values.isEmpty();
                options.param(p.getKey(), values.toArray(new String[0]));
            }
            if (empty) {
                continue;
            }
            Collection<RunResult> results = new Runner(options.build()).run();
            for (RunResult r : results) {
                cells.add(cell(r, round));
            }
        }
        return cells;
    }

    private static Cell cell(RunResult r, int round) {
        BenchmarkParams p = r.getParams();
        var stats = r.getPrimaryResult().getStatistics();
        return new Cell(p.getParam("contender"), p.getParam("topology"), p.getParam("keys"), p.getParam("outcome"),
                p.getParam("algorithm"), p.getParam("durability"), p.getThreads(), stats.getMean(),
                stats.getPercentile(50), stats.getPercentile(99), stats.getPercentile(99.9), stats.getN(), round);
    }

    /** Granted percentage per cell key, as the forks recorded it. */
    private Map<String, Double> readAux() throws IOException {
        Map<String, Double> granted = new LinkedHashMap<>();
        for (String line : Files.readAllLines(aux, StandardCharsets.UTF_8)) {
            String[] f = line.split("\t");
            if (f.length == 8) {
                granted.put(String.join("|", f[0], f[1], f[2], f[3], f[4], f[5], f[6]), Double.parseDouble(f[7]));
            }
            // An allowance's permits taken from the store, granted, its cap and the store's own count, kept as
            // Report.strandedKey(...) entries: those of the round that stranded the most
            if (f.length == 12 && f[0].equals(DecisionBench.STRANDED_TAG)) {
                String cell = String.join("|", f[1], f[2], f[3], f[4], f[5], f[6], f[7]);
                double stranded = Double.parseDouble(f[8]) - Double.parseDouble(f[9]);
                String most = Report.strandedKey("most", cell);
                if (stranded >= granted.getOrDefault(most, Double.NEGATIVE_INFINITY)) {
                    granted.put(most, stranded);
                    for (int i = 0; i < Report.STRANDED_FIELDS.size(); i++) {
                        granted.put(Report.strandedKey(Report.STRANDED_FIELDS.get(i), cell), Double.parseDouble(f[8 + i]));
                    }
                }
            }
        }
        return granted;
    }

    static String auxKey(Cell c) {
        return String.join("|", c.contender(), c.topology(), c.keys(), c.outcome(), c.algorithm(), c.durability(),
                Integer.toString(c.threads()));
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return String.format(Locale.ROOT, "%s %s %s", f[0], f[1], f[2]);
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    static String fmt(double v) {
        if (v >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        return String.format(Locale.ROOT, "%.1f", v);
    }
}
