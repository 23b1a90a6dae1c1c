package dev.sluice.benchmarks;

import static dev.sluice.benchmarks.BenchmarkMain.fmt;
import static dev.sluice.benchmarks.Report.base;
import static dev.sluice.benchmarks.Report.find;
import static dev.sluice.benchmarks.Report.range;
import static dev.sluice.benchmarks.Report.ratio;

import dev.sluice.benchmarks.BenchmarkMain.Cell;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * The performance goals, checked cell by cell. A ratio is taken within each round, where both contenders ran
 * in the same run, and shown as the median of the rounds with their range: the machine's drift between
 * runs is larger than most of the gaps a goal is about.
 */
final class Goals {
    private static final List<String> TOPOLOGIES = List.of("embedded", "client");
    private static final List<String> KEYS = List.of("hot", "uniform");

    private Goals() {}

    /** Median, lowest and highest of some rounds' ratios. */
    record Ratio(double median, double min, double max, int rounds) {
        String show(double goal, boolean atLeast) {
            boolean met = atLeast ? median >= goal : median <= goal;
            return ratio(median) + (met ? " ✓" : " ✗") + (rounds > 1 ? " (" + ratio(min) + "–" + ratio(max) + ")" : "");
        }
    }

    static String render(List<Cell> cells, List<Cell> measured, List<CpuPerDecision.Row> cpu, int rounds) {
        StringBuilder md = new StringBuilder("## Goals, checked on these numbers\n\n");
        md.append("Each ratio is taken within a round (both contenders measured in the same run) and shown as the"
                + " median of ").append(rounds).append(rounds == 1 ? " round" : " rounds, with their range")
                .append("; ✓ or ✗ judges the median. `uniform` is 100,000 keys.\n\n");

        md.append("**The single hop** (Sluice without coalescing): ≥ 0.90 × the raw floor's ops/s and ≥ Bucket4j's.\n\n");
        md.append("| setting | Sluice ops/s | range | ÷ raw floor | ÷ Bucket4j |\n|---|---:|---:|---:|---:|\n");
        for (String topology : TOPOLOGIES) {
            for (String keys : KEYS) {
                for (int threads : List.of(8, 32)) {
                    sync(cells, "sluice", topology, keys, "grant", threads).ifPresent(s -> md.append(String.format(
                            Locale.ROOT, "| %s %s %d thr | %s | %s | %s | %s |%n", topology, keys, threads,
                            fmt(s.opsPerSecond()), range(s), show(measured, s, "raw", Cell::opsPerSecond, 0.9, true),
                            show(measured, s, "bucket4j", Cell::opsPerSecond, 1.0, true))));
                }
            }
        }
        md.append('\n');

        md.append("**Coalesced** (the default): at 32 threads ≥ 2 × Bucket4j on 100,000 keys and ≥ 3 × on one hot key,"
                + " ≥ Redis + Lua on both; 8 threads shown against the same bars.\n\n");
        md.append("| setting | coalesced ops/s | range | ÷ Bucket4j | ÷ Redis Lua | ÷ Sluice uncoalesced |\n"
                + "|---|---:|---:|---:|---:|---:|\n");
        for (String topology : TOPOLOGIES) {
            for (String keys : KEYS) {
                for (int threads : List.of(8, 32)) {
                    double bar = keys.equals("hot") ? 3 : 2;
                    sync(cells, "sluice-coalesced", topology, keys, "grant", threads).ifPresent(s -> md.append(
                            String.format(Locale.ROOT, "| %s %s %d thr | %s | %s | %s | %s | %s |%n", topology, keys,
                            threads, fmt(s.opsPerSecond()), range(s),
                            show(measured, s, "bucket4j", Cell::opsPerSecond, bar, true),
                            redis(measured, s).map(r -> r.show(1.0, true)).orElse("–"),
                            ratios(measured, s, "sluice", Cell::opsPerSecond).map(r -> r.show(1.0, true)).orElse("–"))));
                }
            }
        }
        md.append('\n');

        md.append("**Allowance at local speed** (the pre-filter's ALLOWANCE mode, 32 threads): ≥ 5 × Redis + Lua on the hot"
                + " key; 100,000 keys shown against the same bar.\n\n");
        md.append("| setting | allowance ops/s | range | ÷ Redis Lua |\n|---|---:|---:|---:|\n");
        for (String topology : TOPOLOGIES) {
            for (String keys : KEYS) {
                sync(cells, "sluice-allowance", topology, keys, "grant", 32).ifPresent(s -> md.append(String.format(
                        Locale.ROOT, "| %s %s 32 thr | %s | %s | %s |%n", topology, keys, fmt(s.opsPerSecond()), range(s),
                        redis(measured, s).map(r -> r.show(5.0, true)).orElse("–"))));
            }
        }
        md.append('\n');

        md.append("**A lone caller**: p50 at 1 thread within 10% of the raw floor's (÷ ≤ 1.10).\n\n");
        md.append("| setting | raw p50 µs | Sluice ÷ raw | coalesced ÷ raw |\n|---|---:|---:|---:|\n");
        for (String topology : TOPOLOGIES) {
            for (String keys : KEYS) {
                sync(cells, "raw", topology, keys, "grant", 1).ifPresent(raw -> md.append(String.format(Locale.ROOT,
                        "| %s %s 1 thr | %s | %s | %s |%n", topology, keys, fmt(raw.p50()),
                        againstRaw(cells, measured, raw, "sluice", Cell::p50, 1.1, false),
                        againstRaw(cells, measured, raw, "sluice-coalesced", Cell::p50, 1.1, false))));
            }
        }
        md.append('\n');

        md.append("**Refusals** (32 threads, 90% refused): ≥ the raw floor's rate.\n\n");
        md.append("| setting | Sluice ÷ raw | coalesced ÷ raw |\n|---|---:|---:|\n");
        for (String topology : TOPOLOGIES) {
            sync(cells, "raw", topology, "uniform", "refuse", 32).ifPresent(raw -> md.append(String.format(Locale.ROOT,
                    "| %s uniform 32 thr | %s | %s |%n", topology,
                    againstRaw(cells, measured, raw, "sluice", Cell::opsPerSecond, 1.0, true),
                    againstRaw(cells, measured, raw, "sluice-coalesced", Cell::opsPerSecond, 1.0, true))));
        }
        md.append('\n');

        md.append("**CPU per granted decision** (CPU pass, medians): Sluice ≤ 1.10 × the raw floor's and below"
                + " Bucket4j's.\n\n");
        Optional<CpuPerDecision.Row> sluice = cpu(cpu, "sluice");
        Optional<CpuPerDecision.Row> raw = cpu(cpu, "raw");
        Optional<CpuPerDecision.Row> rawTtl = cpu(cpu, "raw TTL");
        Optional<CpuPerDecision.Row> bucket4j = cpu(cpu, "bucket4j");
        if (sluice.isPresent() && raw.isPresent() && bucket4j.isPresent()) {
            double s = sluice.get().cpuMicrosPerDecision();
            md.append(String.format(Locale.ROOT, "| Sluice µs | ÷ raw floor | ÷ raw floor with a TTL | ÷ Bucket4j |%n"
                    + "|---:|---:|---:|---:|%n| %.1f | %s%s | %s | %s%s |%n%n", s,
                    ratio(s / raw.get().cpuMicrosPerDecision()), s / raw.get().cpuMicrosPerDecision() <= 1.1 ? " ✓" : " ✗",
                    rawTtl.map(r -> ratio(s / r.cpuMicrosPerDecision())).orElse("–"),
                    ratio(s / bucket4j.get().cpuMicrosPerDecision()), s < bucket4j.get().cpuMicrosPerDecision() ? " ✓" : " ✗"));
        }
        return md.toString();
    }

    /**
     * Equal durability: coalesced Sluice with an asynchronous backup, at 32 threads on 100,000 keys, within 10% of
     * the same cell without a backup (÷ EPHEMERAL ≥ 0.90) and at least Redis + Lua with its asynchronous replica
     * (÷ ≥ 1.0), embedded and client; each ratio within a round of the durability and redis-replica passes.
     */
    static String equalDurability(List<Cell> cells, List<Cell> measured) {
        List<Cell> async = new ArrayList<>();
        for (String topology : TOPOLOGIES) {
            find(cells, x -> x.contender().equals("sluice-coalesced") && x.durability().equals("REPLICATED_ASYNC")
                    && x.algorithm().equals("token-bucket") && x.topology().equals(topology)
                    && x.keys().equals("uniform") && x.outcome().equals("grant") && x.threads() == 32)
                    .ifPresent(async::add);
        }
        if (async.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder("## Equal durability, checked on these numbers\n\n");
        md.append("Coalesced Sluice with an asynchronous backup (REPLICATED_ASYNC), 32 threads, 100,000 keys: within 10% of"
                + " EPHEMERAL (÷ ≥ 0.90) and ≥ Redis + Lua with its asynchronous replica (÷ ≥ 1.0). Each ratio is taken"
                + " within a round and shown as the median of the rounds, with their range.\n\n");
        md.append("| setting | REPLICATED_ASYNC ops/s | range | ÷ EPHEMERAL | ÷ Redis + replica | ÷ Redis alone |\n"
                + "|---|---:|---:|---:|---:|---:|\n");
        for (Cell s : async) {
            Optional<Ratio> ephemeral = perDurabilityRound(measured, s, b -> b.contender().equals(s.contender())
                    && b.durability().equals("EPHEMERAL") && b.algorithm().equals(s.algorithm())
                    && b.topology().equals(s.topology()) && b.keys().equals(s.keys())
                    && b.outcome().equals(s.outcome()) && b.threads() == s.threads());
            Optional<Ratio> replica = perDurabilityRound(measured, s, b -> b.contender().equals("redis-replica")
                    && b.keys().equals(s.keys()) && b.outcome().equals(s.outcome()) && b.threads() == s.threads());
            Optional<Ratio> alone = perDurabilityRound(measured, s, b -> b.contender().equals("redis")
                    && b.keys().equals(s.keys()) && b.outcome().equals(s.outcome()) && b.threads() == s.threads());
            md.append(String.format(Locale.ROOT, "| %s %s %d thr | %s | %s | %s | %s | %s |%n", s.topology(), s.keys(),
                    s.threads(), fmt(s.opsPerSecond()), range(s), ephemeral.map(r -> r.show(0.9, true)).orElse("–"),
                    replica.map(r -> r.show(1.0, true)).orElse("–"),
                    alone.map(r -> ratio(r.median())).orElse("–")));
        }
        md.append('\n');
        return md.toString();
    }

    /** Per round, the ops/s of {@code s}'s cell ÷ that of the cell {@code other} picks in the same round. */
    private static Optional<Ratio> perDurabilityRound(List<Cell> measured, Cell s, Predicate<Cell> other) {
        List<Double> r = new ArrayList<>();
        for (Cell a : measured) {
            if (a.contender().equals(s.contender()) && a.durability().equals(s.durability())
                    && a.algorithm().equals(s.algorithm()) && a.topology().equals(s.topology())
                    && a.keys().equals(s.keys()) && a.outcome().equals(s.outcome()) && a.threads() == s.threads()) {
                find(measured, b -> b.round() == a.round() && other.test(b))
                        .ifPresent(b -> r.add(a.opsPerSecond() / b.opsPerSecond()));
            }
        }
        return summary(r);
    }

    private static Optional<CpuPerDecision.Row> cpu(List<CpuPerDecision.Row> cpu, String contender) {
        return cpu.stream().filter(r -> r.contender().equals(contender) && r.outcome().equals("grant")).findFirst();
    }

    private static Optional<Cell> sync(List<Cell> cells, String contender, String topology, String keys, String outcome,
            int threads) {
        return find(cells, x -> x.contender().equals(contender) && base(x) && x.topology().equals(topology)
                && x.keys().equals(keys) && x.outcome().equals(outcome) && x.threads() == threads);
    }

    private static String show(List<Cell> measured, Cell s, String other, ToDoubleFunction<Cell> metric, double goal,
            boolean atLeast) {
        return ratios(measured, s, other, metric).map(r -> r.show(goal, atLeast)).orElse("–");
    }

    /** Per round, {@code s}'s contender's metric ÷ {@code other}'s in {@code s}'s setting. */
    static Optional<Ratio> ratios(List<Cell> measured, Cell s, String other, ToDoubleFunction<Cell> metric) {
        return perRound(measured, s, b -> same(b, s, other), metric);
    }

    /** Per round, the cell's ops/s ÷ Redis's in the same keys, outcome and threads. */
    static Optional<Ratio> redis(List<Cell> measured, Cell s) {
        return perRound(measured, s, b -> b.contender().equals("redis") && b.keys().equals(s.keys())
                && b.outcome().equals(s.outcome()) && b.threads() == s.threads(), Cell::opsPerSecond);
    }

    /** Per round, {@code s}'s contender's metric in {@code s}'s setting ÷ that of the cell {@code other} picks. */
    private static Optional<Ratio> perRound(List<Cell> measured, Cell s, Predicate<Cell> other,
            ToDoubleFunction<Cell> metric) {
        List<Double> r = new ArrayList<>();
        for (Cell a : measured) {
            if (same(a, s, s.contender())) {
                find(measured, b -> b.round() == a.round() && other.test(b))
                        .ifPresent(b -> r.add(metric.applyAsDouble(a) / metric.applyAsDouble(b)));
            }
        }
        return summary(r);
    }

    /** {@code contender}'s metric ÷ the raw floor's in {@code raw}'s setting, per round. */
    private static String againstRaw(List<Cell> cells, List<Cell> measured, Cell raw, String contender,
            ToDoubleFunction<Cell> metric, double goal, boolean atLeast) {
        return sync(cells, contender, raw.topology(), raw.keys(), raw.outcome(), raw.threads())
                .map(s -> show(measured, s, "raw", metric, goal, atLeast)).orElse("–");
    }

    private static boolean same(Cell x, Cell setting, String contender) {
        return x.contender().equals(contender) && base(x) && x.topology().equals(setting.topology())
                && x.keys().equals(setting.keys()) && x.outcome().equals(setting.outcome())
                && x.threads() == setting.threads();
    }

    private static Optional<Ratio> summary(List<Double> ratios) {
        if (ratios.isEmpty()) {
            return Optional.empty();
        }
        List<Double> sorted = ratios.stream().sorted().toList();
        return Optional.of(new Ratio(sorted.get((sorted.size() - 1) / 2), sorted.get(0), sorted.get(sorted.size() - 1),
                sorted.size()));
    }
}
