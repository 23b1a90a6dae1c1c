package dev.sluice.benchmarks;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Key floods against the default bound ({@link Capacity.Policy#SHARE_OVERFLOW_CELLS}): for floods of 1, 3 and 10
 * times the bound spread over several policies at once, whose keys each take 1 permit of
 * {@code fixedWindow(10, 1 h)}, the flood's keys per second and decision p99, then the share of 2,000 new clients'
 * first requests granted (each on one of the policies), the entries held against the bound (cells included); and
 * the heap an exact key and an overflow cell cost. In-process, and Hazelcast (one member and a client in this JVM,
 * its cell table sized so that every policy's cells fit in the cells' quarter of the bound). Prints a Markdown
 * table.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.FloodBench [bound] [policies]}
 */
public final class FloodBench {
    private static final LimitSpec SPEC = LimitSpec.fixedWindow(10, Duration.ofHours(1));
    private static final int CLIENTS = 2_000;
    private static final int IN_FLIGHT = 256;
    private static final int BUCKETS = 50_000; // of 0.1 ms

    private FloodBench() {}

    public static void main(String[] args) throws Exception {
        int bound = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int policies = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int cells = clusterCells(bound, policies);
        System.out.println("| store | bound | policies | flood (× bound) | keys | keys/s | decision p50 / p99 ms"
                + " | new clients granted | overflow decisions | entries held, cells included |");
        System.out.println("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|");
        for (int times : List.of(1, 3, 10)) {
            try (RateLimiters local = LocalRateLimiters.create(java.time.InstantSource.system(), Capacity.maxKeys(bound))) {
                run("in-process", local, bound, policies, times, () -> local.storeStatistics().keys()
                        + local.storeStatistics().overflowCells());
            }
        }
        for (int times : List.of(1, 3, 10)) {
            HazelcastInstance member = member(bound, cells, 6195);
            HazelcastInstance client = BenchCluster.client("sluice-bench-flood", List.of("127.0.0.1:6195"));
            try (RateLimiters limiters = HazelcastRateLimiters.create(client)) {
                run("Hazelcast client (" + cells + " cells a policy set)", limiters, bound, policies, times,
                        () -> member.getMap("sluice").size());
            } finally {
                client.shutdown();
                member.getLifecycleService().terminate();
            }
        }
        memory(bound);
    }

    /** Cells a policy such that {@code policies} tables fit in the cells' quarter of {@code bound}. */
    private static int clusterCells(int bound, int policies) {
        long cellShare = bound - Capacity.exactUnits(Capacity.Policy.SHARE_OVERFLOW_CELLS, bound);
        return (int) Math.max(1, cellShare / policies);
    }

    private static HazelcastInstance member(int bound, int cells, int port) {
        Config config = BenchCluster.memberConfig("sluice-bench-flood", port, List.of("127.0.0.1:" + port));
        SluiceHazelcast.configure(config, SluiceHazelcast.DEFAULT_MAP_NAME,
                Capacity.maxKeys(bound).withOverflowCells(cells));
        return Hazelcast.newHazelcastInstance(config);
    }

    private static void run(String store, RateLimiters limiters, int bound, int policies, int times,
            java.util.function.LongSupplier held) throws Exception {
        List<PartitionedRateLimiter<String>> apis = new java.util.ArrayList<>();
        for (int p = 0; p < policies; p++) {
            apis.add(limiters.partitioned("flood-" + p, SPEC,
                    LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build()));
        }
        AtomicLongArray latency = new AtomicLongArray(BUCKETS);
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        long keys = (long) bound * times;
        long start = System.nanoTime();
        for (long i = 0; i < keys; i++) {
            inFlight.acquire();
            long t0 = System.nanoTime();
            CompletableFuture<Lease> f = apis.get((int) (i % policies)).acquireAsync("flood-" + i, 1);
            f.whenComplete((lease, failure) -> {
                latency.incrementAndGet((int) Math.min(BUCKETS - 1, (System.nanoTime() - t0) / 100_000));
                inFlight.release();
            });
        }
        inFlight.acquire(IN_FLIGHT);
        double seconds = (System.nanoTime() - start) / 1e9;
        int granted = 0;
        for (int i = 0; i < CLIENTS; i++) {
            granted += apis.get(i % policies).tryAcquire("client-" + i, 1).isAcquired() ? 1 : 0;
        }
        System.out.printf("| %s | %,d | %d | %d | %,d | %,.0f | %s | %.1f%% | %,d | %,d |%n", store, bound, policies, times,
                keys,
                keys / seconds, percentiles(latency), 100.0 * granted / CLIENTS,
                limiters.storeStatistics().overflowDecisions(), held.getAsLong());
    }

    /** Heap per exact key, then per overflow cell, on one member: growth of the used heap after full GCs. */
    private static void memory(int bound) throws Exception {
        int cells = bound; // enough cells that their heap stands out of the collector's noise
        HazelcastInstance member = member(bound * 2, cells, 6196);
        try (RateLimiters limiters = HazelcastRateLimiters.create(member)) {
            PartitionedRateLimiter<String> api = limiters.partitioned("memory", SPEC);
            api.tryAcquire("prime", 1);
            long before = usedHeapAfterGc();
            for (int i = 0; i < Capacity.exactUnits(Capacity.Policy.SHARE_OVERFLOW_CELLS, bound * 2) - 1; i++) {
                api.tryAcquire("exact-" + i, 1);
            }
            long exact = usedHeapAfterGc();
            int entries = member.getMap("sluice").size();
            for (int i = 0; i < 3 * cells; i++) { // enough new keys to reach most cells
                api.tryAcquire("beyond-" + i, 1);
            }
            long all = usedHeapAfterGc();
            int cellEntries = member.getMap("sluice").size() - entries;
            System.out.printf("%nHazelcast, one member: %,d exact keys, %.0f heap bytes a key; %,d of %,d overflow cells"
                    + " holding state, %.0f heap bytes a cell%n", entries, (exact - before) / (double) (entries - 1),
                    cellEntries, cells, (all - exact) / (double) Math.max(1, cellEntries));
        } finally {
            member.getLifecycleService().terminate();
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            TimeUnit.MILLISECONDS.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static String percentiles(AtomicLongArray latency) {
        long[] counts = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] = latency.get(i);
        }
        long total = Arrays.stream(counts).sum();
        double p50 = -1;
        double p99 = -1;
        long seen = 0;
        for (int i = 0; i < BUCKETS && p99 < 0; i++) {
            seen += counts[i];
            if (p50 < 0 && seen >= total * 0.5) {
                p50 = (i + 1) / 10.0;
            }
            if (seen >= total * 0.99) {
                p99 = (i + 1) / 10.0;
            }
        }
        return String.format("%.1f / %.1f", p50, p99);
    }
}
