package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
 * A plain acquisition against an acquisition settled with its real cost afterwards ({@link Lease#settle}), on one
 * token bucket per key (10,000 keys, uniformly at random, a budget no run spends): in-process, and through one
 * Hazelcast member in this JVM (every key local, synchronous backups configured but no second member). Each
 * settlement reserves 2 and settles at 1 or 3 at random: half refunds, half charges, so the settled path costs a
 * second step on the store each time, waited for.
 *
 * <p>{@code java -jar benchmarks/target/benchmarks.jar SettleBench -f 1 -wi 2 -i 3 -r 2}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-Dhazelcast.phone.home.enabled=false", "-Dhazelcast.logging.type=none",
        "--add-modules", "java.se", "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-opens", "java.management/sun.management=ALL-UNNAMED",
        "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class SettleBench {
    private static final int KEYS = 10_000;
    private static final LimitSpec SPEC = LimitSpec.tokenBucket(1_000_000_000, 1_000_000_000, Duration.ofSeconds(1));

    /** in-process, hazelcast-embedded. */
    @Param({"in-process", "hazelcast-embedded"})
    public String backend;

    private HazelcastInstance member;
    private RateLimiters limiters;
    private PartitionedRateLimiter<String> limiter;
    private String[] partitions;

    @Setup(Level.Trial)
    public void setUp() {
        if (backend.equals("hazelcast-embedded")) {
            member = BenchCluster.member("sluice-bench-settle", 6191, List.of("127.0.0.1:6191"));
            limiters = HazelcastRateLimiters.create(member);
        } else {
            limiters = LocalRateLimiters.create();
        }
        limiter = limiters.partitioned("settle", SPEC,
                LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build());
        partitions = new String[KEYS];
        for (int i = 0; i < KEYS; i++) {
            partitions[i] = "k" + i;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        limiters.close();
        if (member != null) {
            member.getLifecycleService().terminate();
        }
    }

    private String anyKey() {
        return partitions[ThreadLocalRandom.current().nextInt(KEYS)];
    }

    @Benchmark
    public boolean acquire() {
        Lease lease = limiter.tryAcquire(anyKey(), 2);
        if (!lease.isAcquired()) {
            throw new IllegalStateException("refused: " + lease);
        }
        return true;
    }

    @Benchmark
    public boolean acquireAndSettle() {
        Lease lease = limiter.tryAcquire(anyKey(), 2);
        if (!lease.isAcquired()) {
            throw new IllegalStateException("refused: " + lease);
        }
        return lease.settle(ThreadLocalRandom.current().nextBoolean() ? 1 : 3).join().isSettled();
    }
}
