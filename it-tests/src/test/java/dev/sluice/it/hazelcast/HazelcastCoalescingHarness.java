package dev.sluice.it.hazelcast;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Coalescing;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.hazelcast.SluiceMember;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decisions per second with coalescing on and off: 1, 8 and 32 caller threads; one hot key and 100,000
 * uniform keys; embedded (callers on member A, whose partner member B runs in a child JVM) and through a
 * client (in A's JVM). Every decision is a granted token-bucket acquisition. Off and on alternate three
 * times per cell on the same keys; the table shows the medians. Not a test; prints a markdown table. Run
 * with {@code java -cp <it-tests test classpath> dev.sluice.it.hazelcast.HazelcastCoalescingHarness
 * [seconds per run]}.
 */
public final class HazelcastCoalescingHarness {
    private static final LimitSpec SPEC = LimitSpec.tokenBucket(1_000_000_000L, 1_000_000_000L, Duration.ofSeconds(1));
    private static final String CLUSTER = "sluice-coalescing-harness";
    private static final int ROUNDS = 3;

    private HazelcastCoalescingHarness() {}

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 3;
        int[] ports = FreePorts.take(2);
        List<String> addresses = FreePorts.addresses(ports);
        Config config = SluiceMember.loopbackConfig(CLUSTER, "127.0.0.1", ports[0], addresses.subList(0, 1));
        config.setProperty("hazelcast.logging.type", "none");
        HazelcastInstance a = Hazelcast.newHazelcastInstance(SluiceHazelcast.configure(config));
        Process b = new ProcessBuilder(new File(System.getProperty("java.home"), "bin/java").getPath(),
                "-cp", System.getProperty("java.class.path"), "-Dhazelcast.logging.type=none",
                "-Dsluice.member.cluster=" + CLUSTER, "-Dsluice.member.port=" + ports[1],
                "-Dsluice.member.members=" + String.join(",", addresses),
                SluiceMember.class.getName()).inheritIO().start();
        HazelcastInstance client = null;
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (a.getCluster().getMembers().size() < 2) {
                if (System.nanoTime() > until) {
                    throw new IllegalStateException("member B did not join");
                }
                Thread.sleep(100);
            }
            ClientConfig cc = new ClientConfig();
            cc.setClusterName(CLUSTER);
            cc.setProperty("hazelcast.logging.type", "none");
            cc.getNetworkConfig().setAddresses(addresses);
            client = HazelcastClient.newHazelcastClient(SluiceHazelcast.configure(cc));
            System.out.printf("%n| caller | keys | threads | off (decisions/s) | on (decisions/s) | on/off |%n");
            System.out.println("|---|---|---:|---:|---:|---:|");
            for (String mode : List.of("embedded", "client")) {
                HazelcastInstance hz = mode.equals("embedded") ? a : client;
                for (int keys : new int[] {1, 100_000}) {
                    for (int threads : new int[] {1, 8, 32}) {
                        double[] offOn = rates(hz, keys, threads, seconds, ROUNDS);
                        double off = offOn[0];
                        double on = offOn[1];
                        System.out.printf("| %s | %s | %d | %,.0f | %,.0f | %.2f |%n", mode,
                                keys == 1 ? "1 hot" : String.format("%,d uniform", keys), threads, off, on, on / off);
                    }
                }
            }
        } finally {
            if (client != null) {
                client.shutdown();
            }
            b.destroy();
            b.waitFor(10, TimeUnit.SECONDS);
            a.getLifecycleService().terminate();
        }
    }

    /**
     * Off and on, alternating {@code rounds} times on the same two limiters (the machine's load drifts);
     * the median of each.
     */
    private static double[] rates(HazelcastInstance hz, int keys, int threads, double seconds, int rounds)
            throws Exception {
        LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build();
        try (RateLimiters off = HazelcastRateLimiters.create(hz, SluiceHazelcast.DEFAULT_MAP_NAME, "sluice",
                Coalescing.disabled());
                RateLimiters on = HazelcastRateLimiters.create(hz, SluiceHazelcast.DEFAULT_MAP_NAME, "sluice",
                        Coalescing.on())) {
            String policy = "bench-" + UUID.randomUUID();
            PartitionedRateLimiter<String> offLimiter = off.partitioned(policy, SPEC, options);
            PartitionedRateLimiter<String> onLimiter = on.partitioned(policy, SPEC, options);
            run(offLimiter, keys, threads, 0.5); // warm-up
            run(onLimiter, keys, threads, 0.5);
            double[] offRates = new double[rounds];
            double[] onRates = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                offRates[r] = run(offLimiter, keys, threads, seconds);
                onRates[r] = run(onLimiter, keys, threads, seconds);
            }
            Arrays.sort(offRates);
            Arrays.sort(onRates);
            return new double[] {offRates[rounds / 2], onRates[rounds / 2]};
        }
    }

    private static double run(PartitionedRateLimiter<String> limiter, int keys, int threads, double seconds)
            throws InterruptedException {
        LongAdder done = new LongAdder();
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                while (System.nanoTime() < window[1]) {
                    String key = keys == 1 ? "hot" : "k" + ThreadLocalRandom.current().nextInt(keys);
                    if (!limiter.tryAcquire(key, 1).isAcquired()) {
                        throw new AssertionError("refused");
                    }
                    done.increment();
                }
            });
            w.start();
            workers.add(w);
        }
        window[0] = System.nanoTime();
        window[1] = window[0] + (long) (seconds * 1e9);
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        return done.sum() / ((System.nanoTime() - window[0]) / 1e9);
    }
}
