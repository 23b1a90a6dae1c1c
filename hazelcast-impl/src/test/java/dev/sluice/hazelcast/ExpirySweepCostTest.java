package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.StoredState;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A measurement, not a check (runs only with {@code -Dsluice.sweepCost.keys=N}): the cost of the sweep's rounds on one
 * member holding N idle keys with the default 271 partitions, first while every state is live (the steady cost: each
 * round scans every entry and removes none), then once every state has expired (each entry removed). Prints the wall
 * time spent in the removals of one round and the process's CPU time over that round (the member is otherwise idle).
 *
 * <pre>{@code
 * mvn -B -q -o -pl hazelcast-impl -am verify -Dtest=ExpirySweepCostTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dsluice.sweepCost.keys=1000000 -Dmaven.javadoc.skip=true -Dmaven.source.skip=true \
 *     -Dsluice.security-tests=none -Dsluice.alone-tests=none
 * }</pre>
 */
@EnabledIfSystemProperty(named = "sluice.sweepCost.keys", matches = "\\d+")
final class ExpirySweepCostTest {
    private static final long PERIOD_MILLIS = 10_000;

    @Test
    void sweepRounds_atManyIdleKeys() throws Exception {
        int n = Integer.getInteger("sluice.sweepCost.keys");
        int[] port = FreePorts.take(1);
        ManualClock clock = new ManualClock();
        Config config = HazelcastCoalescingTest.memberConfig("sweep-cost", port, 0);
        config.setProperty("hazelcast.partition.count", "271");
        config.setProperty(ExpirySweep.PERIOD_PROPERTY, String.valueOf(PERIOD_MILLIS));
        config.getUserContext().put(SluiceHazelcast.CLOCK_KEY, clock);
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        try {
            IMap<String, long[]> map = member.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            LimitSpec spec = LimitSpec.tokenBucket(100, 10, Duration.ofSeconds(1));
            long[] state = StoredState.pack(Algorithms.acquire(spec, null, clock.millis(), 1).state());
            Map<String, long[]> batch = new HashMap<>();
            for (int i = 0; i < n; i++) {
                batch.put(Keys.partitionKey("sluice", "idle", "client-" + i), state);
                if (batch.size() == 10_000 || i == n - 1) {
                    map.putAll(batch);
                    batch.clear();
                }
            }
            assertEquals(n, map.size());
            ExpirySweep.Registry registry = ExpirySweep.registry(member.getUserContext());
            round(registry, "live (nothing removed)", n);
            round(registry, "live (nothing removed)", n);
            clock.advance(Duration.ofMillis(Algorithms.expiresAt(SluiceHazelcast.stateOf(state)) - clock.millis()
                    + ExpirySweep.MARGIN_MILLIS + 1));
            round(registry, "expired (every entry removed)", n);
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (map.size() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertEquals(0, map.size(), "a full round removes every expired entry");
        } finally {
            member.getLifecycleService().terminate();
        }
    }

    /** Waits for the next full round and prints its removal time and the partition threads' CPU time. */
    private static void round(ExpirySweep.Registry registry, String what, int n) throws InterruptedException {
        long partitions = registry.partitionsSwept.sum();
        long target = partitions - partitions % 271 + 271; // the end of the round under way
        while (registry.partitionsSwept.sum() < target) {
            Thread.sleep(5);
        }
        long nanos = registry.sweptNanos.sum();
        long cpu = processCpuNanos();
        long start = System.nanoTime();
        target += 271;
        while (registry.partitionsSwept.sum() < target) {
            Thread.sleep(5);
        }
        double wall = (System.nanoTime() - start) / 1e6;
        double removals = (registry.sweptNanos.sum() - nanos) / 1e6;
        double cpuMillis = (processCpuNanos() - cpu) / 1e6;
        System.out.printf("sweep round, %,d keys %s: round %.0f ms, in removals %.1f ms (%.0f ns a key),"
                + " process CPU over the round %.1f ms (%.0f ns a key)%n", n, what, wall, removals, removals * 1e6 / n,
                cpuMillis, cpuMillis * 1e6 / n);
        assertTrue(removals > 0);
    }

    /** The process's CPU time: the member is otherwise idle, and this thread sleeps while a round runs. */
    private static long processCpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos();
    }
}
