package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A calendar quota against the fixed window it extends: one grant on one of 10,000 keys at random, a monthly
 * calendar window in Europe/Paris beside a fixed window of 30 days, both never refusing. {@code in-process} is the
 * in-process store; {@code hazelcast-embedded} two members in this JVM, the caller one of them (half the keys on
 * the other), without coalescing, so each grant is one step where its key lives and the spec travels on the wire;
 * {@code step} the step alone, on one key's state, which is what a calendar window adds to.
 *
 * <p>{@code java -cp benchmarks/target/benchmarks.jar org.openjdk.jmh.Main CalendarWindowBench -f 1 -wi 2 -i 3 -r 2}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-XX:+UseParallelGC", "-Dhazelcast.phone.home.enabled=false",
        "-Dhazelcast.logging.type=none", "--add-modules", "java.se",
        "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens", "java.management/sun.management=ALL-UNNAMED",
        "--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class CalendarWindowBench {
    private static final int KEYS = 10_000;
    private static final long NEVER_REFUSES = LimitSpec.MAX_LIMIT;

    /** fixed-window (30 days), calendar-month (Europe/Paris). */
    @Param({"fixed-window", "calendar-month"})
    public String spec;

    /** step (the pure step on one key's state, no store), in-process, hazelcast-embedded. */
    @Param({"step", "in-process", "hazelcast-embedded"})
    public String store;

    private final List<HazelcastInstance> members = new ArrayList<>();
    private RateLimiters limiters;
    private PartitionedRateLimiter<String> limiter;
    private final String[] keys = new String[KEYS];
    private LimitSpec limit;

    /** One key's state per thread, for the step alone. */
    @State(Scope.Thread)
    public static class Key {
        long[] state;
    }

    @Setup(Level.Trial)
    public void start() {
        limit = spec.equals("calendar-month")
                ? LimitSpec.calendarWindow(NEVER_REFUSES, CalendarPeriod.MONTH, ZoneId.of("Europe/Paris"))
                : LimitSpec.fixedWindow(NEVER_REFUSES, Duration.ofDays(30));
        if (store.equals("step")) {
            return;
        }
        if (store.equals("hazelcast-embedded")) {
            List<String> addresses = List.of("127.0.0.1:6191", "127.0.0.1:6192");
            members.add(BenchCluster.member("sluice-bench-calendar", 6191, addresses));
            members.add(BenchCluster.member("sluice-bench-calendar", 6192, addresses));
            BenchCluster.awaitSafe(members.get(0), 2);
            limiters = HazelcastRateLimiters.create(members.get(0), Coalescing.disabled());
        } else {
            limiters = LocalRateLimiters.create();
        }
        limiter = limiters.partitioned("calendar-bench", limit,
                LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).build());
        for (int i = 0; i < KEYS; i++) {
            keys[i] = "k" + i;
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (limiters != null) {
            limiters.close();
        }
        members.forEach(m -> m.getLifecycleService().terminate());
    }

    @Benchmark
    public boolean grant(Key key) {
        if (limiter == null) { // the step alone: what a store runs where the key lives, on a state that never fills
            Verdict v = Algorithms.acquire(limit, key.state, System.currentTimeMillis(), 1);
            key.state = v.state();
            return v.granted();
        }
        return limiter.tryAcquire(keys[ThreadLocalRandom.current().nextInt(KEYS)], 1).isAcquired();
    }
}
