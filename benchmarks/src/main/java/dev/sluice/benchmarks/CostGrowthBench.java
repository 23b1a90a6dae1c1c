package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.limiter.Coalescing;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * How a grant's cost and a key's stored bytes grow with the state a key holds: every algorithm at limits of 100
 * to 100,000, each held at 90% (and a sliding log of 100,000 holding 99,000), one caller, two members in this
 * JVM, the key owned by the member the caller is not, no coalescing. Each sample first stores the prepared
 * state (untimed), then times one grant of 1 permit, so every grant sees the same held state.
 *
 * <p>A log and a concurrency limiter hold one grant per permit ({@link #fill}): {@code spread}, the grants evenly
 * over the last half of the window (or lease duration); {@code burst}, 100 grants per millisecond. Each figure is the median of the rounds' (the token bucket of 100 is the small key every p50 is
 * divided by). The stored bytes are those of the value the map holds after a measured grant (16 bytes of array
 * header plus 8 per word).
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.CostGrowthBench [samples] [warmup] [rounds]}
 */
public final class CostGrowthBench {
    private static final Duration WINDOW = Duration.ofHours(1);
    private static final Duration LEASE = Duration.ofMinutes(10);
    private static final List<Long> LIMITS = List.of(100L, 1_000L, 10_000L, 100_000L);
    private static final int BURST_PER_MILLI = 100;

    /** Each cell's state, built once for all rounds (its times stay within the window for the whole run). */
    private static final java.util.Map<Cell, long[]> FILLED = new java.util.HashMap<>();

    private CostGrowthBench() {}

    /** One measured configuration. */
    private record Cell(String algorithm, LimitSpec spec, long limit, long held, boolean burst) {
        String label() {
            return algorithm + (burst ? " (burst)" : "");
        }
    }

    public static void main(String[] args) throws Exception {
        int samples = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        List<Cell> cells = new ArrayList<>();
        for (long limit : LIMITS) {
            long held = limit * 9 / 10;
            cells.add(new Cell("token bucket", LimitSpec.tokenBucket(limit, limit, WINDOW), limit, held, false));
            cells.add(new Cell("fixed window", LimitSpec.fixedWindow(limit, WINDOW), limit, held, false));
            cells.add(new Cell("sliding window", LimitSpec.slidingWindow(limit, WINDOW, 10), limit, held, false));
            cells.add(new Cell("sliding counter", LimitSpec.slidingCounter(limit, WINDOW), limit, held, false));
            cells.add(new Cell("gcra", LimitSpec.gcra(limit, WINDOW, limit), limit, held, false));
            cells.add(new Cell("sliding log", LimitSpec.slidingLog(limit, WINDOW), limit, held, false));
            cells.add(new Cell("sliding log", LimitSpec.slidingLog(limit, WINDOW), limit, held, true));
            cells.add(new Cell("concurrency", LimitSpec.concurrency(limit, LEASE), limit, held, false));
        }
        cells.add(new Cell("sliding log", LimitSpec.slidingLog(100_000, WINDOW), 100_000, 99_000, false));
        cells.add(new Cell("sliding log", LimitSpec.slidingLog(100_000, WINDOW), 100_000, 99_000, true));

        String cluster = "sluice-bench-cost";
        List<String> addresses = List.of("127.0.0.1:6181", "127.0.0.1:6182");
        HazelcastInstance caller = BenchCluster.member(cluster, 6181, addresses);
        HazelcastInstance other = BenchCluster.member(cluster, 6182, addresses);
        try (RateLimiters limiters = HazelcastRateLimiters.create(caller, Coalescing.disabled())) {
            BenchCluster.awaitSafe(caller, 2);
            IMap<String, long[]> map = caller.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            System.out.println("| algorithm | limit | held | stored bytes per key | grant p50 µs | grant p99 µs"
                    + " | p50 ÷ token bucket of 100 |");
            System.out.println("|---|---:|---:|---:|---:|---:|---:|");
            measure(caller, map, limiters, cells.get(0), -1, 2_000, 0); // warms the JIT and the connections
            long[][][] results = new long[cells.size()][rounds][];
            int n = 0;
            for (int r = 0; r < rounds; r++) {
                for (int c = 0; c < cells.size(); c++) {
                    results[c][r] = measure(caller, map, limiters, cells.get(c), n++, samples, warmup);
                }
            }
            double base = median(results[0], 0) / 1_000.0;
            for (int c = 0; c < cells.size(); c++) {
                Cell cell = cells.get(c);
                double p50 = median(results[c], 0) / 1_000.0;
                System.out.printf(Locale.ROOT, "| %s | %,d | %,d | %,d | %.0f | %.0f | %.2f |%n", cell.label(),
                        cell.limit(), cell.held(), results[c][0][2], p50, median(results[c], 1) / 1_000.0, p50 / base);
            }
        } finally {
            caller.getLifecycleService().terminate();
            other.getLifecycleService().terminate();
        }
    }

    /** The median over the rounds of one figure (of an even count, the lower middle one). */
    private static long median(long[][] rounds, int figure) {
        long[] values = new long[rounds.length];
        for (int r = 0; r < rounds.length; r++) {
            values[r] = rounds[r][figure];
        }
        Arrays.sort(values);
        return values[(values.length - 1) / 2];
    }

    /** p50 and p99 of a grant in ns, and the stored bytes after one. */
    private static long[] measure(HazelcastInstance caller, IMap<String, long[]> map, RateLimiters limiters,
            Cell cell, int n, int samples, int warmup) {
        PartitionedRateLimiter<String> limiter = limiters.partitioned("cost-" + n, cell.spec(),
                LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).build());
        String partition = remotePartition(caller, limiter);
        String key = limiter.keyOf(partition);
        long[] state = FILLED.computeIfAbsent(cell, c -> fill(c, System.currentTimeMillis()));
        long[] latencies = new long[samples];
        long bytes = 0;
        for (int i = -warmup; i < samples; i++) {
            map.set(key, state, 2, TimeUnit.HOURS);
            long t0 = System.nanoTime();
            Lease lease = limiter.tryAcquire(partition, 1);
            long elapsed = System.nanoTime() - t0;
            if (!lease.isAcquired()) {
                throw new IllegalStateException(cell.label() + " of " + cell.limit() + " refused a grant");
            }
            lease.close();
            if (i >= 0) {
                latencies[i] = elapsed;
            }
            if (i == samples - 1) {
                long[] stored = map.get(key);
                bytes = stored == null ? 0 : 16 + 8L * stored.length;
            }
        }
        map.delete(key);
        Arrays.sort(latencies);
        return new long[] {latencies[samples / 2], latencies[Math.min(samples - 1, (int) (samples * 0.99))], bytes};
    }

    /** A partition whose key the other member owns. */
    private static String remotePartition(HazelcastInstance caller, PartitionedRateLimiter<String> limiter) {
        for (int i = 0; ; i++) {
            String partition = "k" + i;
            if (!caller.getPartitionService().getPartition(limiter.keyOf(partition)).getOwner().localMember()) {
                return partition;
            }
        }
    }

    /**
     * The state of a key holding {@code cell.held()} permits at {@code now}. A counting state is one grant of them
     * all. A log or a concurrency limiter holds one grant per permit, which granted one at a time would cost the
     * old code time quadratic in the limit to build: all but the last are written as the words a one-word-per-permit
     * log (layout 1, which every version reads) or a concurrency state holds, and the last is granted by the
     * algorithm itself, which writes the state in the layout the code under test keeps.
     */
    static long[] fill(Cell cell, long now) {
        LimitSpec spec = cell.spec();
        if (!(spec instanceof LimitSpec.SlidingLog) && !(spec instanceof LimitSpec.Concurrency)) {
            return Algorithms.step(spec, null, now, Op.ACQUIRE, cell.held(), 0).state();
        }
        boolean leases = spec instanceof LimitSpec.Concurrency;
        long span = (leases ? LEASE : WINDOW).toMillis() / 2;
        int before = (int) cell.held() - 1;
        long[] times = new long[before];
        for (int i = 0; i < before; i++) {
            times[i] = cell.burst() ? now - (before - i + BURST_PER_MILLI - 1) / BURST_PER_MILLI
                    : now - span + (long) i * span / before;
        }
        long[] state;
        ThreadLocalRandom random = ThreadLocalRandom.current();
        if (leases) {
            long header = 0x51CEL << 48 | 7L << 40 | 2L << 32; // a concurrency state, layout 2
            state = new long[4 + 4 * before];
            state[0] = header;
            state[1] = times[before - 1];
            state[2] = times[before - 1] + LEASE.toMillis();
            for (int i = 0; i < before; i++) {
                long nonce = random.nextLong() | 1;
                long token = times[i] << 20 | nonce & 0x7FFFF; // as the step issues it
                state[4 + 4 * i] = token;
                state[5 + 4 * i] = 1;
                state[6 + 4 * i] = times[i] + LEASE.toMillis();
                state[7 + 4 * i] = nonce;
                state[3] = token;
            }
        } else {
            state = new long[3 + before];
            state[0] = 0x51CEL << 48 | 3L << 40 | 1L << 32; // a sliding log, layout 1
            state[1] = times[before - 1];
            state[2] = times[before - 1] + WINDOW.toMillis();
            System.arraycopy(times, 0, state, 3, before);
        }
        Verdict last = Algorithms.step(spec, state, now, Op.ACQUIRE, 1, random.nextLong() | 1);
        if (!last.granted()) {
            throw new IllegalStateException("filling " + cell.label() + " refused its last grant");
        }
        return last.state();
    }
}
