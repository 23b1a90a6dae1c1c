package dev.sluice.benchmarks;

import static dev.sluice.benchmarks.BenchmarkMain.fmt;

import dev.sluice.benchmarks.BenchmarkMain.Cell;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/** Renders the measured cells as markdown: tables, ratios to Sluice, and the goals ({@link Goals}). */
final class Report {
    record Context(String date, int processors, String java, String os, String loadBefore, String loadAfter,
            long elapsedSeconds, String command, int warmup, int iterations, int seconds, int rounds, boolean redis,
            boolean smoke) {}

    private static final List<String> ORDER = List.of("sluice", "sluice-coalesced", "sluice-allowance", "raw",
            "bucket4j", "local", "redis", "redis-replica");
    /** What an allowance cell's aux line carries, in order (see {@link #strandedKey}). */
    static final List<String> STRANDED_FIELDS = List.of("taken", "granted", "cap", "store");
    private static final String HEADER = "| topology | keys | outcome | threads | contender | ops/s | ops/s range | p50 µs"
            + " | p99 µs | p99.9 µs | vs Sluice | granted % |\n|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n";

    private Report() {}

    static String render(Context c, List<Cell> cells, List<Cell> measured, List<MemoryPerKey.Row> memory,
            List<CpuPerDecision.Row> cpu, Map<String, Double> granted) {
        StringBuilder md = new StringBuilder();
        md.append("## Run\n\n");
        md.append("- date: ").append(c.date()).append('\n');
        md.append("- machine: ").append(c.processors()).append(" processors (nproc), ").append(c.java()).append(", ")
                .append(c.os()).append('\n');
        md.append("- load average (1, 5, 15 min) before: ").append(c.loadBefore()).append("; after: ")
                .append(c.loadAfter()).append('\n');
        md.append("- command: `").append(c.command()).append("` (").append(c.elapsedSeconds() / 60).append(" min ")
                .append(c.elapsedSeconds() % 60).append(" s)\n");
        md.append("- JMH 1.37, Mode.SampleTime, 1 fork, ").append(c.warmup()).append(" × 1 s warm-up, ")
                .append(c.iterations()).append(" × ").append(c.seconds()).append(" s measurement per cell; ops/s = "
                + "threads / mean time of one decision (closed loop)\n");
        md.append("- rounds: ").append(c.rounds()).append(" of the peers, refusals and Redis passes and of the CPU pass,"
                + " each round in another contender order; a row shows the round of median ops/s (CPU: median CPU)"
                + " and the range over all rounds\n");
        if (!BenchCluster.capacityBound()) {
            md.append("- capacity bound of Sluice's maps: off (`-D").append(BenchCluster.CAPACITY_PROPERTY)
                    .append("=off`)\n");
        }
        md.append("- Redis: ").append(c.redis() ? "measured (redis-server on 127.0.0.1:" + RedisContender.PORT + ")"
                : "not measured (no server answered)").append('\n');
        md.append('\n');

        md.append("## Sluice and its peers (token bucket, REPLICATED, sync)\n\n");
        md.append("`local` (in-process, the ceiling) and `redis` (loopback) have no Hazelcast topology; they are "
                + "repeated under each topology for comparison. `vs Sluice` = contender ops/s ÷ Sluice ops/s.\n\n");
        md.append(HEADER);
        for (String topology : List.of("embedded", "client")) {
            for (String keys : List.of("hot", "uniform")) {
                for (String outcome : List.of("grant", "refuse")) {
                    for (int threads : List.of(1, 2, 8, 32)) {
                        Optional<Cell> ref = find(cells, x -> x.contender().equals("sluice") && x.topology().equals(topology)
                                && base(x) && x.keys().equals(keys) && x.outcome().equals(outcome) && x.threads() == threads);
                        for (String contender : ORDER) {
                            boolean noTopology = contender.equals("local") || contender.startsWith("redis");
                            if (noTopology && ref.isEmpty()) {
                                continue;
                            }
                            find(cells, x -> x.contender().equals(contender) && base(x)
                                    && x.topology().equals(noTopology ? "none" : topology) && x.keys().equals(keys)
                                    && x.outcome().equals(outcome) && x.threads() == threads)
                                    .ifPresent(x -> row(md, x, topology, ref, granted));
                        }
                    }
                }
            }
        }
        md.append('\n');

        md.append("## Async (`acquireAsync(1).join()`; raw and Bucket4j through their async APIs)\n\n");
        md.append(HEADER);
        for (Cell x : select(cells, x -> x.contender().endsWith("-async"))) {
            row(md, x, x.topology(), syncSluice(cells, x), granted);
        }
        md.append('\n');

        md.append("## Durability: EPHEMERAL (no backup) against REPLICATED (one synchronous backup)\n\n");
        md.append("`vs Sluice` here is ops/s ÷ the same contender's REPLICATED ops/s.\n\n");
        md.append(HEADER);
        for (Cell x : select(cells, x -> x.durability().equals("EPHEMERAL"))) {
            Optional<Cell> replicated = find(cells, y -> y.contender().equals(x.contender()) && base(y)
                    && y.topology().equals(x.topology()) && y.keys().equals(x.keys()) && y.outcome().equals(x.outcome())
                    && y.threads() == x.threads());
            replicated.ifPresent(r -> row(md, r, r.topology(), replicated, granted));
            row(md, x, x.topology(), replicated, granted);
        }
        md.append('\n');

        md.append(equalDurability(cells, granted));

        md.append("## Every algorithm (Sluice, embedded, 100,000 keys, granted)\n\n");
        md.append("`vs Sluice` = ops/s ÷ token bucket's in the same setting.\n\n");
        md.append("| algorithm | threads | ops/s | p50 µs | p99 µs | p99.9 µs | vs token bucket |\n"
                + "|---|---|---:|---:|---:|---:|---:|\n");
        for (Cell x : select(cells, x -> x.contender().equals("sluice") && !x.algorithm().equals("token-bucket"))) {
            Optional<Cell> tb = find(cells, y -> y.contender().equals("sluice") && base(y)
                    && y.topology().equals(x.topology()) && y.keys().equals(x.keys()) && y.outcome().equals(x.outcome())
                    && y.threads() == x.threads());
            md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s |%n", x.algorithm(), x.threads(),
                    fmt(x.opsPerSecond()), fmt(x.p50()), fmt(x.p99()), fmt(x.p999()),
                    tb.map(t -> ratio(x.opsPerSecond() / t.opsPerSecond())).orElse("–")));
        }
        md.append('\n');

        md.append("## CPU time per decision (whole cluster, robust to other load)\n\n");
        md.append("Two members in one JVM on loopback TCP, 8 caller threads on the first, 20,000 keys uniform (refusals: 90% to spent keys): the"
                + " process's CPU time ÷ decisions counts the caller, the owner, the backup and both ends of the"
                + " network. On a machine whose cores are saturated, throughput is about cores ÷ this. `vs Sluice`"
                + " = Sluice's CPU ÷ the contender's (above 1: the contender is cheaper).\n\n");
        md.append("| outcome | contender | decisions | CPU µs/decision | range | vs Sluice | wall ops/s | granted % |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (CpuPerDecision.Row r : cpu) {
            Optional<CpuPerDecision.Row> sluice = cpu.stream().filter(x -> x.contender().equals("sluice")
                    && x.outcome().equals(r.outcome())).findFirst();
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %.1f | %s | %s | %s | %.1f |%n", r.outcome(),
                    r.contender(), r.decisions(), r.cpuMicrosPerDecision(), r.rounds() > 1 ? String.format(Locale.ROOT,
                    "%.1f–%.1f", r.minCpu(), r.maxCpu()) : "–", sluice.map(x -> ratio(x.cpuMicrosPerDecision()
                    / r.cpuMicrosPerDecision())).orElse("–"), fmt(r.wallOpsPerSecond()), r.grantedPercent()));
        }
        md.append('\n');

        md.append("## Memory per idle key\n\n");
        md.append("One member in the measuring JVM, so owned entries only (a cluster with backup count 1 holds each"
                + " key twice). Heap: growth of the used heap after full GCs ÷ keys (key string, value, Hazelcast's"
                + " record); Hazelcast: `getOwnedEntryMemoryCost() / getOwnedEntryCount()`.\n\n");
        md.append("Partition ids are client identities as the HTTP edge stores them (24-character digests); the"
                + " in-process row is Sluice's own store, without a member. Live: growth of the class histogram's live"
                + " instances ÷ keys, which garbage left after the GCs does not blur.\n\n");
        md.append("| contender | map | keys | entries | heap bytes/key | live bytes/key | Hazelcast bytes/key | where"
                + " the bytes go (live bytes/key by class) |\n|---|---|---:|---:|---:|---:|---:|---|\n");
        for (MemoryPerKey.Row r : memory) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %.0f | %.0f | %s | %s |%n", r.contender(), r.map(),
                    r.keys(), r.entries(), r.heapBytesPerKey(), r.liveBytesPerKey(),
                    r.map().equals(MemoryPerKey.IN_PROCESS) ? "–"
                    : r.hazelcastBytesPerKey() > 0 ? String.format(Locale.ROOT, "%.0f", r.hazelcastBytesPerKey())
                    : "n/a (OBJECT format: Hazelcast does not estimate)", r.breakdown()));
        }
        md.append('\n');
        md.append(allowance(cells, measured, granted));
        if (!c.smoke()) {
            md.append(Goals.render(cells, measured, cpu, c.rounds()));
            md.append(Goals.equalDurability(cells, measured));
            md.append(refusalCost(cells));
        }
        return md.toString();
    }

    /**
     * The durability pass: each asynchronous-backup cell with the same contender's synchronous backup (peers pass)
     * and no backup, and Redis alone and with its asynchronous replica, in the same setting.
     */
    static String equalDurability(List<Cell> cells, Map<String, Double> granted) {
        List<Cell> async = select(cells, x -> x.durability().equals("REPLICATED_ASYNC"));
        if (async.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder("## Equal durability: REPLICATED_ASYNC (one asynchronous backup), EPHEMERAL"
                + " and Redis with an asynchronous replica\n\n");
        md.append("`redis-replica` is a Redis primary on 127.0.0.1:").append(RedisReplica.PRIMARY_PORT)
                .append(" with one replica (`redis-server --replicaof`) on ").append(RedisReplica.REPLICA_PORT)
                .append(", which Redis feeds asynchronously as Hazelcast feeds an asynchronous backup. `vs Sluice`"
                + " here is ops/s ÷ the same setting's REPLICATED_ASYNC ops/s.\n\n");
        md.append(HEADER);
        for (Cell x : async) {
            Optional<Cell> ref = Optional.of(x);
            for (String durability : List.of("REPLICATED", "REPLICATED_ASYNC", "EPHEMERAL")) {
                find(cells, y -> y.contender().equals(x.contender()) && y.durability().equals(durability)
                        && y.algorithm().equals(x.algorithm()) && y.topology().equals(x.topology())
                        && y.keys().equals(x.keys()) && y.outcome().equals(x.outcome()) && y.threads() == x.threads())
                        .ifPresent(y -> row(md, y, y.topology(), ref, granted));
            }
            for (String redis : List.of("redis", "redis-replica")) {
                find(cells, y -> y.contender().equals(redis) && y.keys().equals(x.keys())
                        && y.outcome().equals(x.outcome()) && y.threads() == x.threads())
                        .ifPresent(y -> row(md, y, x.topology(), ref, granted));
            }
        }
        md.append('\n');
        return md.toString();
    }

    /** The key under which {@link BenchmarkMain} keeps one of an allowance cell's {@link #STRANDED_FIELDS}. */
    static String strandedKey(String field, String cellKey) {
        return "stranded:" + field + "|" + cellKey;
    }

    /**
     * The pre-filter's allowance (coalesced Sluice behind {@code LocalPrefilter} in ALLOWANCE mode) beside Redis
     * and coalesced Sluice, with the permits it stranded in this one replica (the benchmark JVM).
     */
    static String allowance(List<Cell> cells, List<Cell> measured, Map<String, Double> aux) {
        List<Cell> rows = select(cells, x -> x.contender().equals("sluice-allowance") && base(x));
        if (rows.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder("## Allowance: the pre-filter's ALLOWANCE mode (one replica)\n\n");
        md.append("Coalesced Sluice behind `LocalPrefilter` with `PrefilterMode.ALLOWANCE` and its defaults (batch up to"
                + " 10% of the limit, refill interval 100 ms, hold 1 s; cache of 200,000 keys). Stranded = permits the"
                + " store granted to the pre-filter (batches) − permits granted to callers, over the whole trial (set-up,"
                + " warm-up and measurement; of several rounds, the one that stranded the most), in this replica, the"
                + " benchmark JVM; `store` is the same from the store's own"
                + " count on the hot key (its limit − what it still holds). Bound = the largest batch per key"
                + " (`max(1, floor(limit × 0.1))` of the open spec, 10^9); ratios per round, median (range).\n\n");
        md.append("| setting | ops/s | range | p50 µs | p99 µs | ÷ Redis Lua | ÷ coalesced | stranded | store | taken |"
                + " bound per key |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Cell x : rows) {
            String cell = BenchmarkMain.auxKey(x);
            Double taken = aux.get(strandedKey("taken", cell));
            Double grantedPermits = aux.get(strandedKey("granted", cell));
            Double cap = aux.get(strandedKey("cap", cell));
            Double store = aux.get(strandedKey("store", cell));
            String stranded = taken == null || grantedPermits == null ? "–" : fmt(taken - grantedPermits);
            String fromStore = store == null || store < 0 || grantedPermits == null ? "–" : fmt(store - grantedPermits);
            md.append(String.format(Locale.ROOT, "| %s %s %d thr | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                    x.topology(), x.keys(), x.threads(), fmt(x.opsPerSecond()), range(x), fmt(x.p50()), fmt(x.p99()),
                    Goals.redis(measured, x).map(r -> r.show(0, true).replace(" ✓", "")).orElse("–"),
                    Goals.ratios(measured, x, "sluice-coalesced", Cell::opsPerSecond)
                            .map(r -> r.show(0, true).replace(" ✓", "")).orElse("–"),
                    stranded, fromStore, taken == null ? "–" : fmt(taken), cap == null ? "–" : fmt(cap)));
        }
        md.append('\n');
        return md.toString();
    }

    /** A grant's cost against a refusal's, from the refusal workload's mix. */
    static String refusalCost(List<Cell> cells) {
        StringBuilder md = new StringBuilder("## Refusals against grants (Sluice)\n\n");
        md.append("The refuse workload is 90% refusals and 10% grants, so one refusal costs (mean(refuse workload) − 0.1"
                + " × mean(grant workload)) ÷ 0.9.\n\n");
        md.append("| setting | grant µs (mean) | refusal µs (est.) | grant ÷ refusal |\n|---|---:|---:|---:|\n");
        for (Cell g : select(cells, x -> x.contender().equals("sluice") && base(x) && x.outcome().equals("grant"))) {
            find(cells, x -> x.contender().equals("sluice") && base(x) && x.outcome().equals("refuse")
                    && x.topology().equals(g.topology()) && x.keys().equals(g.keys()) && x.threads() == g.threads())
                    .ifPresent(r -> {
                        double refusal = (r.meanMicros() - 0.1 * g.meanMicros()) / 0.9;
                        md.append(String.format(Locale.ROOT, "| %s %s %d thr | %s | %s | %s |%n", g.topology(), g.keys(),
                                g.threads(), fmt(g.meanMicros()), fmt(refusal), ratio(g.meanMicros() / refusal)));
                    });
        }
        md.append('\n');
        return md.toString();
    }


    static Optional<Cell> same(List<Cell> cells, Cell s, String contender) {
        return find(cells, x -> x.contender().equals(contender) && base(x) && x.topology().equals(s.topology())
                && x.keys().equals(s.keys()) && x.outcome().equals(s.outcome()) && x.threads() == s.threads());
    }

    private static Optional<Cell> syncSluice(List<Cell> cells, Cell x) {
        return same(cells, x, "sluice");
    }

    /** The default algorithm and durability. */
    static boolean base(Cell x) {
        return x.algorithm().equals("token-bucket") && x.durability().equals("REPLICATED");
    }

    private static void row(StringBuilder md, Cell x, String topology, Optional<Cell> ref, Map<String, Double> granted) {
        String vs = ref.map(r -> ratio(x.opsPerSecond() / r.opsPerSecond())).orElse("–");
        Double g = granted.get(BenchmarkMain.auxKey(x));
        md.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %s%s | %s | %s | %s | %s | %s | %s | %s |%n", topology,
                x.keys(), x.outcome(), x.threads(), x.contender(), x.durability().equals("REPLICATED") ? "" : " " + x.durability(),
                fmt(x.opsPerSecond()), range(x), fmt(x.p50()), fmt(x.p99()), fmt(x.p999()), vs,
                g == null ? "–" : String.format(Locale.ROOT, "%.1f", g)));
    }

    /** A cell's ops/s over its rounds, or a dash for a cell measured once. */
    static String range(Cell x) {
        return x.rounds() > 1 ? fmt(x.minOps()) + "–" + fmt(x.maxOps()) : "–";
    }

    static String ratio(double r) {
        return String.format(Locale.ROOT, "%.2f", r);
    }

    static Optional<Cell> find(List<Cell> cells, Predicate<Cell> p) {
        return cells.stream().filter(p).findFirst();
    }

    static List<Cell> select(List<Cell> cells, Predicate<Cell> p) {
        return new ArrayList<>(cells.stream().filter(p).toList());
    }
}
