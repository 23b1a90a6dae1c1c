package dev.sluice.benchmarks;

import static dev.sluice.benchmarks.BenchmarkMain.fmt;
import static dev.sluice.benchmarks.Report.range;
import static dev.sluice.benchmarks.Report.ratio;

import dev.sluice.benchmarks.BenchmarkMain.Cell;
import dev.sluice.benchmarks.Goals.Ratio;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The in-flight pass's section of the report ({@link InflightPass}): its table, its goals and its set-up. */
final class InflightReport {
    private static final List<String> TOPOLOGIES = List.of("embedded", "client");

    private InflightReport() {}

    /** Empty when the pass did not run. */
    static String render(List<Cell> cells, List<Cell> measured, InflightPass.Result result) {
        List<Cell> rows = cells.stream().filter(InflightReport::inflight).toList();
        if (rows.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder("## Decisions in flight: the regime of real deployments\n\n");
        md.append("Open loop with a bound: the load keeps a fixed number of asynchronous decisions in flight (a"
                + " semaphore's permits; a completion gives its permit back), on keys drawn uniformly at random, a"
                + " token bucket that grants, one synchronous backup. `embedded`: one load JVM that is a member beside"
                + " one member JVM; `client`: two load JVMs, each a client of two member JVMs with half the decisions"
                + " in flight, their rates summed. `redis-lettuce` runs from the same load JVMs (one, then two): Redis"
                + " + Lua through Lettuce, asynchronous, commands written without waiting (auto-flush), over shared"
                + " connections, as Spring Cloud Gateway's RedisRateLimiter drives it. Every key holds state before"
                + " measuring. ops/s = completed decisions per second over the measured window; latency is a decision's"
                + " start to its completion (every 8th sampled; of two load JVMs the worse). Not JMH: a plain measured"
                + " loop (see benchmarks/README.md). `failed`: decisions of the row's window that completed with an"
                + " exception (a timeout on an overloaded machine), not counted in ops/s. Settings: ")
                .append(result.settings()).append(".\n\n");
        md.append("| topology | keys | in flight | contender | ops/s | ops/s range | p50 µs | p99 µs | p99.9 µs |"
                + " ÷ coalesced Sluice | failed |\n|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Cell x : rows) {
            Optional<Ratio> vs = Goals.ratios(measured, x, "sluice-coalesced", Cell::opsPerSecond);
            Long failed = result.failed().get(InflightPass.failedKey(x));
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    x.topology(), x.keys(), x.threads(), x.contender(), fmt(x.opsPerSecond()), range(x), fmt(x.p50()),
                    fmt(x.p99()), fmt(x.p999()), vs.map(r -> ratio(r.median())).orElse("–"),
                    failed == null ? "–" : Long.toString(failed)));
        }
        md.append('\n');

        md.append("**Goals**: coalesced Sluice ≥ 1 × Redis + Lua through Lettuce (1.5 × is the aim), ≥ 2 × Bucket4j's"
                + " asynchronous API, and ≥ uncoalesced Sluice (coalescing costs nothing). Each ratio is taken within a"
                + " round (both contenders from the same run), shown as the median of the rounds with their range.\n\n");
        md.append("| setting | coalesced ops/s | range | ÷ Redis + Lettuce | aim 1.5 | ÷ Bucket4j async | ÷ uncoalesced"
                + " | ÷ raw async floor |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String topology : TOPOLOGIES) {
            for (Cell s : rows) {
                if (!s.contender().equals("sluice-coalesced") || !s.topology().equals(topology)) {
                    continue;
                }
                Optional<Ratio> redis = Goals.ratios(measured, s, "redis-lettuce", Cell::opsPerSecond);
                md.append(String.format(Locale.ROOT, "| %s %s keys %d in flight | %s | %s | %s | %s | %s | %s | %s |%n",
                        topology, s.keys(), s.threads(), fmt(s.opsPerSecond()), range(s),
                        redis.map(r -> r.show(1.0, true)).orElse("–"),
                        redis.map(r -> r.median() >= 1.5 ? "✓" : "✗").orElse("–"),
                        Goals.ratios(measured, s, "bucket4j", Cell::opsPerSecond).map(r -> r.show(2.0, true)).orElse("–"),
                        Goals.ratios(measured, s, "sluice", Cell::opsPerSecond).map(r -> r.show(1.0, true)).orElse("–"),
                        Goals.ratios(measured, s, "raw", Cell::opsPerSecond).map(r -> ratio(r.median())
                                + (r.rounds() > 1 ? " (" + ratio(r.min()) + "–" + ratio(r.max()) + ")" : ""))
                                .orElse("–")));
            }
        }
        md.append('\n');

        if (!result.sanity().isEmpty()) {
            md.append("**For scale**: `redis-benchmark` (a client written in C) running the same script with the same"
                    + " arguments on 100,000 random keys, after a run that created them.\n\n| redis-benchmark |"
                    + " ops/s |\n|---|---:|\n");
            for (InflightPass.Sanity s : result.sanity()) {
                md.append(String.format(Locale.ROOT, "| %s | %s |%n", s.setting(), fmt(s.opsPerSecond())));
            }
            md.append('\n');
        }
        if (!result.sweeps().isEmpty()) {
            md.append("**Set-up**: one decision on every key for each contender before measuring, the load JVMs"
                    + " together (coalesced Sluice's serves uncoalesced Sluice too: the same limiter and keys; Redis keeps"
                    + " its keys from one topology to the next).\n\n"
                    + "| topology | contender | decisions | failed | seconds | decisions/s | entries after |\n"
                    + "|---|---|---:|---:|---:|---:|---:|\n");
            for (InflightPass.Sweep s : result.sweeps()) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %.1f | %s | %d |%n", s.topology(),
                        s.contender(), s.decisions(), s.failures(), s.millis() / 1e3,
                        fmt(s.decisions() / Math.max(1e-3, s.millis() / 1e3)), s.entries()));
            }
            md.append('\n');
        }
        return md.toString();
    }

    /** Cells of the in-flight pass: the only ones whose keys are counted ("100k", "1M") rather than named. */
    static boolean inflight(Cell x) {
        return !x.keys().equals("hot") && !x.keys().equals("uniform") && Report.base(x) && x.outcome().equals("grant");
    }
}
