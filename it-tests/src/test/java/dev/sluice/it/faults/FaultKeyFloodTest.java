package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.HazelcastClientOfflineException;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.LocalMapStats;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceMember;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Scenario: a key flood. A client that sends a new identity with every request, against one member JVM with a
 * small heap, bounded at {@value #BOUND} keys with the default policy (new keys at the bound share overflow cells;
 * no state that still limits is ever dropped).
 */
@ExtendWith(Reaper.class)
final class FaultKeyFloodTest {
    private static final String HEAP = "128m";
    private static final int BOUND = 20_000;
    private static final int HOT_LIMIT = 100;
    private static final Duration FLOOD_TIME = Duration.ofSeconds(20);
    /** The flood goes on past {@link #FLOOD_TIME} until it has sent ten times the bound, up to this long. */
    private static final Duration MAX_FLOOD_TIME = Duration.ofSeconds(75);
    /**
     * The decision timeout: the machine is 2 cores shared with other builds (load averages of 10 and more were
     * seen), where 1 s is missed by a starved client or member now and then; an unbounded member misses any.
     */
    private static final int TIMEOUT_SECONDS = 5;
    private static final Duration TIMEOUT = Duration.ofSeconds(TIMEOUT_SECONDS);
    private static final long MAX_KEYS = 10L * BOUND;
    private static final int THREADS = 4;
    private static final int IN_FLIGHT = 256;
    private static final Duration WINDOW = Duration.ofHours(1);
    /** Latency buckets of 0.1 ms up to 5 s. */
    private static final int BUCKETS = 50_000;

    /**
     * One member JVM ({@code -Xmx128m}, {@code sluice.member.maxKeys=20000}), a client in this JVM, 4 threads with
     * up to 256 decisions in flight sending {@code partitioned("flood", fixedWindow(10, 1 h))} a new partition id
     * each, ten times the bound ({@value #MAX_KEYS} keys, for at most {@code MAX_FLOOD_TIME}), while another thread
     * asks a hot key of {@code fixedWindow(100, 1 h)} every millisecond or so and a spent victim of
     * {@code slidingLog(10, 1 h)}, and another samples the member's heap and entries every second.
     *
     * <p>Expected: every decision of the flood, the hot key and the victim is the store's, within the decision
     * timeout ({@value #TIMEOUT_SECONDS} s, failure mode {@code THROW}: a timeout would be an exception, none
     * degraded); the member never holds more than its bound (overflow cells included) and what one count refresh
     * lets through; nothing is evicted; its heap after a full GC stays below half of its maximum; the hot key grants
     * exactly its 100 of many more asks and the victim nothing more, as without the flood. The figures (keys per
     * second, share of the flood granted, heap, overflow decisions, decision latency) are printed and written to
     * {@code target/faults/key-flood.md}.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void keyFlood_memberKeepsDecidingWithinTimeout_memoryBounded_hotKeyExact() throws Exception {
        FaultCluster cluster = new FaultCluster("faults-key-flood", 1).maxHeap(HEAP)
                .property(SluiceMember.MAX_KEYS_PROPERTY, Integer.toString(BOUND));
        try (cluster) {
            cluster.startAll();
            HazelcastInstance client = cluster.client(TIMEOUT);
            FaultCluster.awaitMembers(client, 1, Duration.ofSeconds(30));
            // Seen twice after other tests in the same JVM: the first call right after the client saw the member
            // found no connection. The flood is measured from a connected client, so the warm-up may retry.
            FaultCluster.await(() -> {
                try {
                    FaultCluster.warmUp(client);
                    return true;
                } catch (HazelcastClientOfflineException e) {
                    return false;
                }
            }, Duration.ofSeconds(30), () -> "the client never reached the member");
            RateLimiters limiters = HazelcastRateLimiters.create(client);
            Windows.avoidBoundary(WINDOW, Duration.ofSeconds(120));
            LimiterOptions options = LimiterOptions.builder().decisionTimeout(TIMEOUT).build();
            PartitionedRateLimiter<String> flood = limiters.partitioned("flood", LimitSpec.fixedWindow(10, WINDOW),
                    options);
            RateLimiter hot = limiters.limiter("flood-hot", LimitSpec.fixedWindow(HOT_LIMIT, WINDOW), options);
            PartitionedRateLimiter<String> login = limiters.partitioned("flood-login", LimitSpec.slidingLog(10, WINDOW),
                    options);
            for (int i = 0; i < 10; i++) {
                assertTrue(login.tryAcquire("victim", 1).isAcquired());
            }
            long[] victimCounts = new long[2]; // asked, granted

            AtomicBoolean flooding = new AtomicBoolean(true);
            AtomicLong sent = new AtomicLong();
            AtomicLong granted = new AtomicLong();
            Map<String, Throwable> unexpected = new ConcurrentHashMap<>();
            AtomicLong failures = new AtomicLong();
            AtomicLongArray latency = new AtomicLongArray(BUCKETS);
            Semaphore inFlight = new Semaphore(IN_FLIGHT);
            long[] hotCounts = new long[2]; // asked, granted
            List<long[]> samples = new ArrayList<>(); // heap used, entries
            ExecutorService pool = Executors.newFixedThreadPool(THREADS + 2);
            long start = System.nanoTime();
            long deadline = start + FLOOD_TIME.toNanos();
            long lastDeadline = start + MAX_FLOOD_TIME.toNanos();
            List<Future<?>> tasks = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                tasks.add(pool.submit(() -> {
                    for (long i = 0; sent.get() < MAX_KEYS && (System.nanoTime() < deadline
                            || sent.get() < 10L * BOUND && System.nanoTime() < lastDeadline); i++) {
                        inFlight.acquire();
                        sent.incrementAndGet();
                        long t0 = System.nanoTime();
                        flood.acquireAsync("t" + thread + "-" + i, 1).whenComplete((lease, failure) -> {
                            record(latency, System.nanoTime() - t0);
                            if (failure != null) {
                                failures.incrementAndGet();
                                unexpected.putIfAbsent(failure.toString(), failure);
                            } else if (lease.isDegraded()) {
                                unexpected.putIfAbsent("degraded: " + lease, new AssertionError(lease.toString()));
                            } else if (lease.isAcquired()) {
                                granted.incrementAndGet();
                            }
                            inFlight.release();
                        });
                    }
                    return null;
                }));
            }
            tasks.add(pool.submit(() -> {
                while (flooding.get()) {
                    long t0 = System.nanoTime();
                    try {
                        Lease lease = hot.tryAcquire(1);
                        record(latency, System.nanoTime() - t0);
                        hotCounts[0]++;
                        if (lease.isDegraded()) {
                            unexpected.putIfAbsent("hot key degraded", new AssertionError(lease.toString()));
                        }
                        hotCounts[1] += lease.isAcquired() ? 1 : 0;
                        if (hotCounts[0] % 10 == 0) {
                            Lease victim = login.tryAcquire("victim", 1);
                            victimCounts[0]++;
                            victimCounts[1] += victim.isAcquired() ? 1 : 0;
                            if (victim.isDegraded()) {
                                unexpected.putIfAbsent("victim degraded", new AssertionError(victim.toString()));
                            }
                        }
                    } catch (RuntimeException e) {
                        unexpected.putIfAbsent("hot key: " + e, e);
                    }
                    Thread.sleep(1);
                }
                return null;
            }));
            tasks.add(pool.submit(() -> {
                while (flooding.get()) {
                    samples.add(memberStats(client, false));
                    Thread.sleep(1_000);
                }
                return null;
            }));
            for (int t = 0; t < THREADS; t++) {
                tasks.get(t).get(MAX_FLOOD_TIME.toSeconds() + 30, TimeUnit.SECONDS);
            }
            assertTrue(inFlight.tryAcquire(IN_FLIGHT, 30, TimeUnit.SECONDS), "the flood's last decisions came back");
            long took = System.nanoTime() - start;
            flooding.set(false);
            for (Future<?> task : tasks) {
                task.get(30, TimeUnit.SECONDS);
            }
            pool.shutdown();
            long[] end = memberStats(client, true);

            double seconds = took / 1e9;
            long maxHeapUsed = samples.stream().mapToLong(s -> s[0]).max().orElse(0);
            long maxEntries = samples.stream().mapToLong(s -> s[1]).max().orElse(0);
            String report = String.format("| %,d | %.1f | %,.0f | %.1f%% | %s | %.0f | %.0f | %.0f | %,d | %,d | %,d | %s |%n",
                    sent.get(), seconds, sent.get() / seconds, 100.0 * granted.get() / sent.get(), HEAP,
                    maxHeapUsed / 1048576.0, end[0] / 1048576.0, end[2] / 1048576.0, BOUND, end[1], end[3],
                    percentiles(latency));
            String columns = "| keys | s | keys/s | flood granted | -Xmx | heap max used MiB | heap after GC MiB | max heap MiB"
                    + " | bound | entries | evictions | decision p50 / p99 / max ms |";
            System.out.println("[faults] key flood: " + columns + "\n[faults] " + report
                    + "[faults] hot key: asked " + hotCounts[0] + ", granted " + hotCounts[1] + "; victim: asked "
                    + victimCounts[0] + ", granted " + victimCounts[1] + "; samples " + samples.size()
                    + ", most entries sampled " + maxEntries + "; overflow decisions "
                    + limiters.storeStatistics().overflowDecisions());
            limiters.close();
            Path out = Path.of("target", "faults", "key-flood.md");
            Files.createDirectories(out.getParent());
            Files.writeString(out, columns + "\n|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|\n" + report);

            assertTrue(unexpected.isEmpty(), failures.get() + " failed, first: " + unexpected);
            assertEquals(HOT_LIMIT, hotCounts[1], "the hot key granted exactly its limit of " + hotCounts[0] + " asks");
            assertTrue(hotCounts[0] > 2 * HOT_LIMIT, "the hot key was asked throughout: " + hotCounts[0]);
            assertEquals(0, victimCounts[1], "the spent victim granted nothing more of " + victimCounts[0] + " asks");
            assertTrue(victimCounts[0] > 10, "the victim was asked throughout: " + victimCounts[0]);
            assertTrue(sent.get() >= 5L * BOUND, "a flood well past the bound: " + sent.get());
            long allowed = BOUND + 64; // keys admitted while the member's count is read, a few per thread
            assertTrue(maxEntries <= allowed && end[1] <= allowed, "entries " + maxEntries + ", " + end[1] + "; bound "
                    + BOUND + ", cells included");
            assertEquals(0, end[3], "nothing evicted");
            assertTrue(end[0] < end[2] / 2, "heap after GC " + end[0] + " of " + end[2]);
        }
    }

    private static void record(AtomicLongArray latency, long nanos) {
        latency.incrementAndGet((int) Math.min(BUCKETS - 1, nanos / 100_000));
    }

    /** p50 / p99 / max in milliseconds, to the bucket (0.1 ms). */
    private static String percentiles(AtomicLongArray latency) {
        long total = 0;
        int max = 0;
        for (int i = 0; i < BUCKETS; i++) {
            total += latency.get(i);
            max = latency.get(i) > 0 ? i : max;
        }
        long seen = 0;
        double p50 = -1;
        double p99 = -1;
        for (int i = 0; i < BUCKETS && p99 < 0; i++) {
            seen += latency.get(i);
            if (p50 < 0 && seen >= total * 0.50) {
                p50 = (i + 1) / 10.0;
            }
            if (seen >= total * 0.99) {
                p99 = (i + 1) / 10.0;
            }
        }
        return String.format("%.1f / %.1f / %.1f", p50, p99, (max + 1) / 10.0);
    }

    /** heap used, Sluice entries, max heap, evictions: of the member, through its executor. */
    private static long[] memberStats(HazelcastInstance client, boolean gc) throws Exception {
        return client.getExecutorService("faults-key-flood").submit(new MemberStats(gc)).get(30, TimeUnit.SECONDS);
    }

    /** Runs on the member: its heap (after full GCs when asked) and the Sluice map's owned entries and evictions. */
    static final class MemberStats implements Callable<long[]>, Serializable, HazelcastInstanceAware {
        private static final long serialVersionUID = 1L;
        private final boolean gc;
        private transient HazelcastInstance member;

        MemberStats(boolean gc) {
            this.gc = gc;
        }

        @Override
        public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
            this.member = hazelcastInstance;
        }

        @Override
        public long[] call() throws InterruptedException {
            if (gc) {
                for (int i = 0; i < 3; i++) {
                    System.gc();
                    Thread.sleep(100);
                }
            }
            var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
            LocalMapStats stats = member.getMap("sluice").getLocalMapStats();
            return new long[] {heap.getUsed(), stats.getOwnedEntryCount(), Runtime.getRuntime().maxMemory(),
                    stats.getEvictionCount()};
        }
    }
}
