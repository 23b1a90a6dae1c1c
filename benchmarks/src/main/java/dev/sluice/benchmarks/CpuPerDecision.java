package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Coalescing;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimiterOptions;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * CPU time per decision, the cost that bounds throughput on a saturated machine and that other load on
 * the machine barely changes (unlike wall time): two members in this JVM on real loopback TCP (so the
 * owner's work, the backup, both sides of the network and the caller are all counted), 8 caller
 * threads, 20,000 keys uniform (open keys for grants; 90% spent keys for refusals), then the process's CPU time ÷ decisions.
 * The {@code create} outcome (not run unless asked for) decides each time on a key never decided before: what a
 * store pays to create a key's state, the set-up of every new client.
 */
final class CpuPerDecision {
    /**
     * One contender and outcome: the round of median CPU per decision, with the lowest and highest of all
     * rounds ({@code rounds} of them).
     */
    record Row(String contender, String outcome, long decisions, double cpuMicrosPerDecision, double wallOpsPerSecond,
            double grantedPercent, double minCpu, double maxCpu, int rounds) {
        Row(String contender, String outcome, long decisions, double cpu, double wallOpsPerSecond, double grantedPercent) {
            this(contender, outcome, decisions, cpu, wallOpsPerSecond, grantedPercent, cpu, cpu, 1);
        }
    }

    /** 8, or -Dsluice.bench.cpu.threads=32 (where coalescing has more to gather). */
    private static final int THREADS = Integer.getInteger("sluice.bench.cpu.threads", 8);

    private CpuPerDecision() {}

    /**
     * Every contender is first run once for warm-up (JIT compilation and Hazelcast's lazy set-up are
     * CPU too, and would otherwise fall on whoever runs first), then measured in {@code rounds} rounds, each
     * in another order; a row per contender and outcome, the median round's.
     */
    static List<Row> measure(int keys, int decisions, int rounds) throws Exception {
        List<Row> rows = new ArrayList<>();
        int portA = BenchCluster.port(6195);
        int portB = BenchCluster.port(6196);
        HazelcastInstance a = BenchCluster.member("sluice-bench-cpu", portA, List.of("127.0.0.1:" + portA));
        HazelcastInstance b = BenchCluster.member("sluice-bench-cpu", portB,
                List.of("127.0.0.1:" + portA, "127.0.0.1:" + portB));
        try {
            BenchCluster.awaitSafe(a, 2);
            List<String> names = List.of("sluice", "sluice async", "sluice coalesced", "sluice EPHEMERAL", "raw",
                    "raw EPHEMERAL", "raw via submitToKey", "raw TTL", "bucket4j");
            // -Dsluice.bench.cpu.only=sluice,raw: a subset, e.g. to profile one contender with JFR
            String only = System.getProperty("sluice.bench.cpu.only");
            if (only != null) {
                List<String> wanted = List.of(only.split(","));
                names = names.stream().filter(wanted::contains).toList();
            }
            // -Dsluice.bench.cpu.outcomes=grant: one outcome only, e.g. so a profile holds nothing else
            List<String> outcomes = List.of(System.getProperty("sluice.bench.cpu.outcomes", "grant,refuse").split(","));
            // Fresh keys for the create outcome lie past the ones the others draw from, one run's worth per run.
            int created = outcomes.contains("create") ? (rounds + 1) * decisions : 0;
            List<Contender> contenders = new ArrayList<>();
            List<AtomicLong> fresh = new ArrayList<>();
            for (String name : names) {
                Contender c = contender(a, name, keys + created);
                contenders.add(c);
                fresh.add(new AtomicLong(keys));
                if (!name.startsWith("raw")) {
                    Exhaust.closedKeys(c, keys);
                }
            }
            for (String outcome : outcomes) {
                for (int i = 0; i < names.size(); i++) {
                    run(contenders.get(i), fresh.get(i), keys, outcome, decisions / 2, names.get(i));
                }
                Map<String, List<Row>> byContender = new LinkedHashMap<>();
                for (int round = 0; round < rounds; round++) {
                    for (int j = 0; j < names.size(); j++) {
                        int i = (j + round) % names.size();
                        byContender.computeIfAbsent(names.get(i), k -> new ArrayList<>())
                                .add(run(contenders.get(i), fresh.get(i), keys, outcome, decisions, names.get(i)));
                    }
                }
                for (List<Row> runs : byContender.values()) {
                    List<Row> sorted = runs.stream().sorted(Comparator.comparingDouble(Row::cpuMicrosPerDecision)).toList();
                    Row m = sorted.get((sorted.size() - 1) / 2);
                    rows.add(new Row(m.contender(), m.outcome(), m.decisions(), m.cpuMicrosPerDecision(),
                            m.wallOpsPerSecond(), m.grantedPercent(), sorted.get(0).cpuMicrosPerDecision(),
                            sorted.get(sorted.size() - 1).cpuMicrosPerDecision(), sorted.size()));
                }
            }
            contenders.forEach(Contender::close);
        } finally {
            b.getLifecycleService().terminate();
            a.getLifecycleService().terminate();
        }
        return rows;
    }

    private static Contender contender(HazelcastInstance hz, String name, int keys) {
        switch (name) {
            case "sluice":
            case "sluice async":
            case "sluice coalesced":
            case "sluice EPHEMERAL":
                return new SluiceContender(HazelcastRateLimiters.create(hz, name.endsWith("coalesced")
                        ? Coalescing.on() : Coalescing.disabled()), name.endsWith("async"), keys,
                        SluiceContender.openSpec("token-bucket"), SluiceContender.closedSpec("token-bucket"),
                        LimiterOptions.builder().durability(name.contains("EPHEMERAL") ? Durability.EPHEMERAL
                                : Durability.REPLICATED).build(), key -> true);
            case "raw":
            case "raw EPHEMERAL":
                return new RawContender(hz, name.contains("EPHEMERAL"), false, keys, key -> true);
            case "raw TTL":
                return new RawContender(hz, false, false, false, true, keys, key -> true);
            case "raw via submitToKey":
                return new RawContender(hz, false, false, true, keys, key -> true);
            default:
                return new Bucket4jContender(hz, false, keys, key -> true);
        }
    }

    /** {@code next}: the contender's next key that no run has decided on (the create outcome). */
    private static Row run(Contender c, AtomicLong next, int keys, String outcome, int decisions, String name)
            throws InterruptedException {
        boolean create = outcome.equals("create");
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        AtomicLong left = new AtomicLong(decisions);
        AtomicLong granted = new AtomicLong();
        int openPercent = outcome.equals("grant") ? 100 : 10;
        Thread[] threads = new Thread[THREADS];
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        for (int t = 0; t < THREADS; t++) {
            threads[t] = new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (left.decrementAndGet() >= 0) {
                    int key = create ? (int) next.getAndIncrement() : r.nextInt(keys);
                    if (c.decide(key, create || r.nextInt(100) < openPercent)) {
                        granted.incrementAndGet();
                    }
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        long wall = System.nanoTime() - t0;
        long cpu = os.getProcessCpuTime() - cpu0;
        return new Row(name, outcome, decisions, cpu / 1e3 / decisions, decisions / (wall / 1e9),
                100.0 * granted.get() / decisions);
    }
}
