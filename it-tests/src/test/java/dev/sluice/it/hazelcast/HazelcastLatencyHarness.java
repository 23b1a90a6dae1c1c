package dev.sluice.it.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;

/**
 * Latency of one decision (a granted token-bucket acquisition), single-threaded, on a 2-member loopback
 * cluster: from the key's owner, from the other member, and from a client; replicated and ephemeral.
 * Not a test; run with
 * {@code java -cp <it-tests test classpath> dev.sluice.it.hazelcast.HazelcastLatencyHarness [iterations]}.
 */
public final class HazelcastLatencyHarness {
    private static final LimitSpec SPEC = LimitSpec.tokenBucket(1_000_000_000L, 1_000_000_000L, Duration.ofSeconds(1));

    private HazelcastLatencyHarness() {}

    public static void main(String[] args) {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        try (TestCluster cluster = TestCluster.start("sluice-latency", 2, null)) {
            HazelcastInstance owner = cluster.members.get(0);
            HazelcastInstance other = cluster.members.get(1);
            HazelcastInstance client = cluster.addClient(SluiceHazelcast.configure(cluster.clientConfig()));
            String name = ownedBy(owner, owner.getCluster().getLocalMember());
            for (Durability durability : Durability.values()) {
                LimiterOptions options = LimiterOptions.builder().durability(durability).build();
                run("owner-local  " + durability, owner, name, options, iterations);
                run("remote member " + durability, other, name, options, iterations);
                run("client       " + durability, client, name, options, iterations);
            }
        }
    }

    private static String ownedBy(HazelcastInstance hz, Member member) {
        while (true) {
            String name = "latency-" + UUID.randomUUID();
            if (hz.getPartitionService().getPartition("sluice/" + name).getOwner().equals(member)) {
                return name;
            }
        }
    }

    private static void run(String label, HazelcastInstance hz, String name, LimiterOptions options, int n) {
        try (RateLimiters limiters = HazelcastRateLimiters.create(hz)) {
            RateLimiter limiter = limiters.limiter(name, SPEC, options);
            for (int i = 0; i < n / 2; i++) {
                limiter.tryAcquire(1); // warm-up
            }
            long[] nanos = new long[n];
            long start = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long t = System.nanoTime();
                if (!limiter.tryAcquire(1).isAcquired()) {
                    throw new AssertionError("refused");
                }
                nanos[i] = System.nanoTime() - t;
            }
            long total = System.nanoTime() - start;
            Arrays.sort(nanos);
            System.out.printf("%-24s p50 %6.1f us  p99 %7.1f us  %8.0f decisions/s%n", label,
                    nanos[n / 2] / 1e3, nanos[(int) (n * 0.99)] / 1e3, n / (total / 1e9));
        }
    }
}
