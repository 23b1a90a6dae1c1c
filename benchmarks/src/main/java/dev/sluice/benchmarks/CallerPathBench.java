package dev.sluice.benchmarks;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.algorithm.RequestCodec;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.DecisionStore;
import dev.sluice.limiter.store.RateLimiterRuntime;
import dev.sluice.limiter.store.StepOutcomes;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * What the caller's side of one asynchronous decision costs, the store aside: {@code acquireAsync(id, 1).join()} on
 * a partitioned token bucket whose store answers at once (after encoding each request as a remote store does), for
 * a partition drawn uniformly from {@code partitions}. With many decisions in flight this work is done on the
 * issuing and completing threads of every caller, beside the store's own, so it bounds the rate one JVM can drive.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar org.openjdk.jmh.Main CallerPathBench -f 1 -wi 3 -i 5 -r 2}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class CallerPathBench {
    /** How many partitions the decisions spread over. */
    @Param({"1", "100000"})
    public int partitions;

    private RateLimiters limiters;
    private PartitionedRateLimiter<String> limiter;
    private String[] ids;

    @Setup
    public void setUp() {
        DecisionStore answersAtOnce = requests -> CompletableFuture.completedFuture(StepOutcomes.ofEach(requests,
                r -> {
                    long words = RequestCodec.encode(r.spec(), r.op(), r.permits(), r.leaseId()).length;
                    return Verdict.granted(words, 1_000_000_000L, 3_600_000, 0, 3_600_000, null);
                }));
        limiters = RateLimiterRuntime.create(answersAtOnce);
        limiter = limiters.partitioned("callers", LimitSpec.tokenBucket(1_000_000_000L, 1, Duration.ofHours(1)),
                LimiterOptions.defaults());
        ids = new String[partitions];
        for (int i = 0; i < partitions; i++) {
            ids[i] = "client-" + i;
        }
    }

    @TearDown
    public void tearDown() {
        limiters.close();
    }

    @Benchmark
    public long decide() {
        return limiter.acquireAsync(ids[ThreadLocalRandom.current().nextInt(partitions)], 1).join().remaining();
    }
}
