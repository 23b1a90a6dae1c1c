package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Coalescing;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimiterOptions;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The uncoalesced 100,000-key cell round by round, beside the raw floor, where its cost can be split:
 * <pre>{@code
 * java <Hazelcast's --add-opens> [-Dsluice.bench.capacity=off] [-Drawttl=true] [-DgcAfterFill=true] [-Djfr=FILE] \
 *     -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.UniformCellProfile \
 *     warm|cold KEYS THREADS DECISIONS ROUNDS
 * }</pre>
 * Two members in this JVM on loopback TCP (ports 6187-6188), uncoalesced Sluice (REPLICATED, token bucket) and
 * the raw floor (and with {@code rawttl} the raw floor writing with a TTL), each round {@code DECISIONS} grants
 * per contender in another order, after an unreported half round; per round the process's CPU time per decision
 * and the wall rate. {@code warm}: every key holds state first, as in {@link DecisionBench}, so the capacity bound
 * never runs while measuring; {@code cold}: every decision is a new key's first, so it runs on every decision.
 * {@code jfr}: a JFR recording of the measured rounds (execution samples every 2 ms). It compiles against older
 * versions of this module too, to compare code on one machine at one time.
 */
public final class UniformCellProfile {
    private UniformCellProfile() {}

    public static void main(String[] a) throws Exception {
        boolean warm = a[0].equals("warm");
        int keys = Integer.parseInt(a[1]);
        int threads = Integer.parseInt(a[2]);
        int decisions = Integer.parseInt(a[3]);
        int rounds = Integer.parseInt(a[4]);
        String label = System.getProperty("label", "");
        HazelcastInstance m1 = BenchCluster.member("sluice-bench-profile", 6187, List.of("127.0.0.1:6187"));
        HazelcastInstance m2 = BenchCluster.member("sluice-bench-profile", 6188,
                List.of("127.0.0.1:6187", "127.0.0.1:6188"));
        BenchCluster.awaitSafe(m1, 2);
        // Cold: a fresh key for every decision of every round (KEYS should be at least DECISIONS)
        int total = warm ? keys : keys * (rounds + 1) * 2;
        Contender sluice = new SluiceContender(HazelcastRateLimiters.create(m1, Coalescing.disabled()), false,
                total, SluiceContender.openSpec("token-bucket"), SluiceContender.closedSpec("token-bucket"),
                // A loaded machine must not end the run: the raw floor has no timeout either
                LimiterOptions.builder().durability(Durability.REPLICATED).decisionTimeout(Duration.ofSeconds(30))
                        .build(), k -> true);
        Contender raw = new RawContender(m1, false, false, total, k -> true);
        boolean ttl = Boolean.getBoolean("rawttl");
        Contender rawTtl = ttl ? new RawContender(m1, false, false, false, true, total, k -> true) : null;
        Contender[] cs = ttl ? new Contender[] {sluice, raw, rawTtl} : new Contender[] {sluice, raw};
        String[] names = {"sluice", "raw", "raw-ttl"};
        AtomicLong[] next = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        if (warm) {
            Exhaust.decideOnce(sluice, 0, keys, true);
            Exhaust.decideOnce(raw, 0, keys, true);
            if (ttl) {
                Exhaust.decideOnce(rawTtl, 0, keys, true);
            }
            if (Boolean.getBoolean("gcAfterFill")) {
                System.gc(); // tenures the fill at once: without it, young collections copy it for the next rounds
            }
        }
        jdk.jfr.Recording recording = null;
        for (int round = -1; round < rounds; round++) {
            if (round == 0 && System.getProperty("jfr") != null) {
                recording = new jdk.jfr.Recording();
                recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(2));
                recording.start();
            }
            for (int j = 0; j < cs.length; j++) {
                int i = (j + Math.max(0, round)) % cs.length;
                double[] r = run(cs[i], warm, keys, threads, round < 0 ? decisions / 2 : decisions, next[i]);
                System.out.printf(Locale.ROOT, "%s %s %s keys=%d threads=%d round=%d cpu_us=%.1f wall_ops=%.0f"
                        + " jit_ms=%.0f gc_ms=%.0f%n", label, warm ? "warm" : "cold", names[i], keys, threads, round,
                        r[0], r[1], r[2], r[3]);
            }
        }
        if (recording != null) {
            recording.stop();
            recording.dump(Path.of(System.getProperty("jfr")));
        }
        System.out.println(label + " owned entries on the first member: "
                + m1.getMap("sluice").getLocalMapStats().getOwnedEntryCount());
        // What the capacity bound's read costs at this size, warmed up first
        for (int i = 0; i < 200; i++) {
            m1.getMap("sluice").getLocalMapStats();
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            m1.getMap("sluice").getLocalMapStats().getOwnedEntryCount();
        }
        System.out.printf(Locale.ROOT, "%s getLocalMapStats() at this size: %.1f us a call%n", label,
                (System.nanoTime() - t0) / 1e3 / 1000);
        sluice.close();
        raw.close();
        m2.getLifecycleService().terminate();
        m1.getLifecycleService().terminate();
        System.exit(0);
    }

    private static double[] run(Contender c, boolean warm, int keys, int threads, int decisions, AtomicLong next)
            throws InterruptedException {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        // The JIT's and the collector's share of the round: CPU the execution samples cannot see
        long jit0 = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        long gc0 = gcMillis();
        AtomicLong left = new AtomicLong(decisions);
        Thread[] ts = new Thread[threads];
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            ts[t] = new Thread(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                while (left.decrementAndGet() >= 0) {
                    int key = warm ? r.nextInt(keys) : (int) next.getAndIncrement();
                    if (!c.decide(key, true)) {
                        throw new IllegalStateException("refused");
                    }
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        long wall = System.nanoTime() - t0;
        long cpu = os.getProcessCpuTime() - cpu0;
        return new double[] {cpu / 1e3 / decisions, decisions / (wall / 1e9),
            ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jit0, gcMillis() - gc0};
    }

    private static long gcMillis() {
        long ms = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(0, gc.getCollectionTime());
        }
        return ms;
    }
}
