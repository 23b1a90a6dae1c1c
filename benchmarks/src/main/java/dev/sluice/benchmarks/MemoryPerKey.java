package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.LocalMapStats;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.limiter.LimiterOptions;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * Memory per idle key: one member in this JVM (so owned entries only, no backup copies: with the usual
 * backup count of 1 a cluster holds each key twice), {@code n} keys each decided once, then the heap
 * growth after a full GC divided by {@code n}, beside Hazelcast's own estimate
 * ({@code getOwnedEntryMemoryCost() / getOwnedEntryCount()}).
 */
final class MemoryPerKey {
    record Row(String contender, String map, long entries, double heapBytesPerKey, double hazelcastBytesPerKey) {}

    private MemoryPerKey() {}

    static List<Row> measure(int n) throws Exception {
        List<Row> rows = new ArrayList<>();
        for (String contender : List.of("sluice (token bucket)", "sluice (gcra)", "bucket4j", "raw")) {
            rows.add(measure(contender, n));
        }
        return rows;
    }

    /**
     * A fresh member per contender; the first {@value #PRIMING} keys create every partition's record store
     * and are not counted.
     */
    private static Row measure(String name, int n) throws Exception {
        HazelcastInstance member = BenchCluster.member("sluice-bench-memory", 6190, List.of("127.0.0.1:6190"));
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
            try (contender) {
                fill(contender, 0, PRIMING);
                long before = usedHeapAfterGc();
                fill(contender, PRIMING, n);
                long after = usedHeapAfterGc();
                LocalMapStats stats = member.getMap(mapName).getLocalMapStats();
                long entries = stats.getOwnedEntryCount();
                return new Row(name, mapName, entries, (after - before) / (double) (n - PRIMING),
                        entries == 0 ? 0 : stats.getOwnedEntryMemoryCost() / (double) entries);
            }
        } finally {
            member.shutdown();
        }
    }

    private static final int PRIMING = 1_000;

    private static void fill(Contender contender, int from, int to) throws InterruptedException {
        Exhaust.decideOnce(contender, from, to, true);
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
            BenchCluster.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
