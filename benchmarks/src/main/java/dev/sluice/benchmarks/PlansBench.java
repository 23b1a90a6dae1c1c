package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.Plans;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A partitioned limiter against a planned one with two plans (half the clients free, half pro), same workload: one
 * grant of 1 permit for a client drawn uniformly from 10,000. Stores: in-process, and Hazelcast embedded (two
 * members in this JVM, so about half the keys are owned by the other member; no coalescing). Every decision is
 * granted: the limits are far above what a run takes.
 *
 * <p>Both run at once, 2 threads each, in one JMH group ({@code pair:plain}, {@code pair:planned}): on a machine
 * others share, whatever slows one slows the other in the same instant, so their ratio holds where their separate
 * figures would not.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar org.openjdk.jmh.Main PlansBench -f 1 -wi 2 -i 3 -r 2}
 */
@State(Scope.Group)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-XX:+UseParallelGC", "-Dhazelcast.phone.home.enabled=false",
        "-Dhazelcast.logging.type=none", "--add-modules", "java.se",
        "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens", "java.management/sun.management=ALL-UNNAMED",
        "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class PlansBench {
    private static final int CLIENTS = 10_000;
    private static final Duration WINDOW = Duration.ofHours(1);

    /** in-process, hazelcast-embedded. */
    @Param({"in-process", "hazelcast-embedded"})
    public String store;

    private HazelcastInstance caller;
    private HazelcastInstance other;
    private RateLimiters limiters;
    private PartitionedRateLimiter<String> plain;
    private PartitionedRateLimiter<String> planned;
    private final String[] clients = new String[CLIENTS];

    @Setup
    public void setUp() {
        if (store.equals("hazelcast-embedded")) {
            String cluster = "sluice-bench-plans";
            List<String> addresses = List.of("127.0.0.1:6191", "127.0.0.1:6192");
            caller = BenchCluster.member(cluster, 6191, addresses);
            other = BenchCluster.member(cluster, 6192, addresses);
            BenchCluster.awaitSafe(caller, 2);
            limiters = HazelcastRateLimiters.create(caller, Coalescing.disabled());
        } else {
            limiters = LocalRateLimiters.create();
        }
        for (int i = 0; i < CLIENTS; i++) {
            clients[i] = "client-" + i;
        }
        LimitSpec free = LimitSpec.fixedWindow(100_000_000, WINDOW);
        LimitSpec pro = LimitSpec.fixedWindow(1_000_000_000, WINDOW);
        String run = "-" + System.nanoTime();
        Plans plans = Plans.builder().plan("free", free).plan("pro", pro).defaultPlan("free").build();
        // The plan as an application's own lookup might give it: cheap, from the client id.
        planned = limiters.planned("plans-bench-planned" + run, plans, LimiterOptions.defaults(),
                client -> (client.charAt(client.length() - 1) & 1) == 0 ? "pro" : "free");
        plain = limiters.partitioned("plans-bench-plain" + run, free, LimiterOptions.defaults());
    }

    @TearDown
    public void tearDown() {
        limiters.close();
        if (caller != null) {
            other.shutdown();
            caller.shutdown();
        }
    }

    @Benchmark
    @Group("pair")
    @GroupThreads(2)
    public Lease plain() {
        return plain.tryAcquire(clients[ThreadLocalRandom.current().nextInt(CLIENTS)], 1);
    }

    @Benchmark
    @Group("pair")
    @GroupThreads(2)
    public Lease planned() {
        return planned.tryAcquire(clients[ThreadLocalRandom.current().nextInt(CLIENTS)], 1);
    }
}
