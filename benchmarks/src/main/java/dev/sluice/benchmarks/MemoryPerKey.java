package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.LocalMapStats;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import javax.management.ObjectName;

/**
 * Memory per idle key: one member in this JVM (so owned entries only, no backup copies: with the usual
 * backup count of 1 a cluster holds each key twice), {@code n} keys each decided once, then the heap
 * growth after a full GC divided by {@code n}, beside Hazelcast's own estimate
 * ({@code getOwnedEntryMemoryCost() / getOwnedEntryCount()}); and Sluice's in-process store, without a member.
 * Partition ids are client identities as the HTTP edge stores them ({@link KeyNames#identity}: 24 characters), so
 * Sluice's keys are {@code sluice/open/<digest>}, the raw floor's and Bucket4j's {@code open/<digest>}.
 * {@code -Dsluice.bench.memory.keys=100000,1000000} sets the sizes and {@code -Dsluice.bench.only.contender} (names
 * as in the report, comma-separated) the rows.
 */
final class MemoryPerKey {
    /**
     * {@code heapBytesPerKey}: growth of the used heap; {@code liveBytesPerKey}: growth of the live instances in the
     * JVM's class histogram, which garbage the collector left behind does not blur; {@code breakdown}: the classes
     * that grew by at least 2 bytes a key, largest first.
     */
    record Row(String contender, String map, long keys, long entries, double heapBytesPerKey,
            double liveBytesPerKey, double hazelcastBytesPerKey, String breakdown) {}

    static final String IN_PROCESS = "in-process";
    private static final List<String> CONTENDERS = List.of("sluice (token bucket)", "sluice (gcra)",
            "sluice in-process (token bucket)", "bucket4j", "raw");

    private MemoryPerKey() {}

    /** Rows at each size of {@code -Dsluice.bench.memory.keys} (default: {@code defaultKeys}). */
    static List<Row> measure(int defaultKeys) throws Exception {
        String sizes = System.getProperty("sluice.bench.memory.keys", String.valueOf(defaultKeys));
        String only = System.getProperty("sluice.bench.only.contender");
        List<Row> rows = new ArrayList<>();
        for (String size : sizes.split(",")) {
            int n = Integer.parseInt(size.trim());
            for (String contender : CONTENDERS) {
                if (only == null || Arrays.asList(only.split(",")).contains(contender)) {
                    rows.add(KeyNames.asIdentities(() -> measure(contender, n)));
                }
            }
        }
        return rows;
    }

    private static Row measure(String name, int n) throws Exception {
        if (name.contains(IN_PROCESS)) {
            // Bounded well above n, so every key holds exact state of its own, as on the member.
            RateLimiters local = LocalRateLimiters.create(InstantSource.system(), Capacity.maxKeys(4L * n));
            return fillAndWeigh(name, IN_PROCESS, n, new SluiceContender(local, false, n,
                    SluiceContender.openSpec("token-bucket"), SluiceContender.closedSpec("token-bucket"),
                    LimiterOptions.defaults(), key -> true), () -> local.storeStatistics().keys(), () -> 0);
        }
        int port = BenchCluster.port(6190);
        HazelcastInstance member = BenchCluster.member("sluice-bench-memory", port, List.of("127.0.0.1:" + port));
        try {
            String mapName;
            Contender contender;
            switch (name) {
                case "sluice (token bucket)":
                case "sluice (gcra)":
                    String algorithm = name.contains("gcra") ? "gcra" : "token-bucket";
                    contender = new SluiceContender(HazelcastRateLimiters.create(member), false, n,
                            SluiceContender.openSpec(algorithm), SluiceContender.closedSpec(algorithm),
                            LimiterOptions.defaults(), key -> true);
                    mapName = SluiceHazelcast.DEFAULT_MAP_NAME;
                    break;
                case "bucket4j":
                    contender = new Bucket4jContender(member, false, n, key -> true);
                    mapName = BenchCluster.BUCKET4J;
                    break;
                default:
                    contender = new RawContender(member, false, false, n, key -> true);
                    mapName = BenchCluster.RAW;
            }
            IMap<?, ?> map = member.getMap(mapName);
            return fillAndWeigh(name, mapName, n, contender, () -> map.getLocalMapStats().getOwnedEntryCount(), () -> {
                LocalMapStats stats = map.getLocalMapStats();
                return stats.getOwnedEntryCount() == 0 ? 0
                        : stats.getOwnedEntryMemoryCost() / (double) stats.getOwnedEntryCount();
            });
        } finally {
            member.shutdown();
        }
    }

    /**
     * Decides each key once and weighs the heap; the first {@value #PRIMING} keys create every partition's record
     * store (and the in-process store's segments) and are not counted.
     */
    private static Row fillAndWeigh(String name, String map, int n, Contender contender, LongSupplier entries,
            DoubleSupplier estimate) throws Exception {
        try (contender) {
            fill(contender, 0, PRIMING);
            long before = usedHeapAfterGc();
            // Kept in a file until the second histogram is taken, so that it does not count as growth itself.
            Path histogramBefore = Files.createTempFile("sluice-memory", ".histogram");
            Files.writeString(histogramBefore, classHistogram());
            fill(contender, PRIMING, n);
            long after = usedHeapAfterGc();
            Map<String, Long> classesAfter = bytesByClass(classHistogram());
            Map<String, Long> classesBefore = bytesByClass(Files.readString(histogramBefore));
            Files.delete(histogramBefore);
            long live = classesAfter.values().stream().mapToLong(Long::longValue).sum()
                    - classesBefore.values().stream().mapToLong(Long::longValue).sum();
            return new Row(name, map, n, entries.getAsLong(), (after - before) / (double) (n - PRIMING),
                    live / (double) (n - PRIMING), estimate.getAsDouble(),
                    breakdown(classesBefore, classesAfter, n - PRIMING));
        }
    }

    private static final int PRIMING = 1_000;

    private static void fill(Contender contender, int from, int to) throws InterruptedException {
        Exhaust.decideOnce(contender, from, to, true);
    }

    /** The JVM's class histogram of live instances (it collects first), as {@code jcmd GC.class_histogram} prints it. */
    private static String classHistogram() throws Exception {
        return (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
    }

    /** Bytes of live instances by class name, from a {@link #classHistogram}. */
    private static Map<String, Long> bytesByClass(String table) {
        Map<String, Long> bytes = new HashMap<>();
        for (String line : table.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":")) {
                bytes.merge(f[3], Long.parseLong(f[2]), Long::sum);
            }
        }
        return bytes;
    }

    /** {@code class bytes/key} for the classes that grew by at least 2 bytes a key, largest first. */
    private static String breakdown(Map<String, Long> before, Map<String, Long> after, int keys) {
        return after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / (double) keys))
                .filter(e -> e.getValue() >= 2)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .map(e -> String.format(Locale.ROOT, "%s %.0f", shortName(e.getKey()), e.getValue()))
                .collect(Collectors.joining(", "));
    }

    private static String shortName(String className) {
        String name = className.replace("[J", "long[]").replace("[B", "byte[]").replace("[Ljava.lang.Object;", "Object[]");
        if (name.startsWith("[L") && name.endsWith(";")) {
            name = name.substring(2, name.length() - 1) + "[]";
        }
        return name.substring(name.lastIndexOf('.') + 1);
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            BenchCluster.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
