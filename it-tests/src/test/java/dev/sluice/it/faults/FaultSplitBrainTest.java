package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Scenario 4: two halves of a cluster decide alone, then merge. */
@ExtendWith(Reaper.class)
final class FaultSplitBrainTest {
    private static final long LIMIT = 10;
    private static final Duration DAY = Duration.ofDays(1);

    /** Every algorithm, limit 10, with windows and periods far longer than the test. */
    private static final List<LimitSpec> SPECS = List.of(
            LimitSpec.fixedWindow(LIMIT, DAY),
            LimitSpec.slidingWindow(LIMIT, DAY.multipliedBy(2), 2),
            LimitSpec.slidingLog(LIMIT, Duration.ofHours(1)),
            LimitSpec.slidingCounter(LIMIT, DAY),
            LimitSpec.tokenBucket(LIMIT, 1, Duration.ofHours(1)),
            LimitSpec.gcra(1, Duration.ofHours(1), LIMIT),
            LimitSpec.concurrency(LIMIT, Duration.ofMinutes(5)));

    /** Permits side A and side B take on one key while split. */
    private record Split(String name, int a, int b) {}

    private static final List<Split> SPLITS = List.of(new Split("a3b7", 3, 7), new Split("a7b3", 7, 3),
            new Split("a2b3", 2, 3), new Split("a10b10", 10, 10));

    /**
     * Member A (port 6031) and member B (6032) start at once, each with a TCP-IP list of only itself: two
     * clusters of the same name that cannot see each other. While split, a client of each side takes
     * permits on the same keys, for every algorithm with a limit of 10. Then the test adds B to A's TCP-IP
     * list (through A's watchdog), and A's next split-brain check
     * ({@code hazelcast.merge.first.run.delay.seconds} 5, then every 2 s) finds B: the split lasts exactly
     * as long as the test wants, however slow the machine.
     *
     * <p>Expected, documented in {@code SluiceMergePolicy}: while split, each side decides alone and admits up
     * to the full limit (10 on A and 10 on B on the same key: twice the limit overall). When A finds B, the
     * smaller (or, at equal size, one) side merges into the other and the policy keeps, per key, the state
     * with more consumption, whichever side merges: for the rate algorithms the larger consumption of
     * the two (A 3 and B 7, or A 7 and B 3, both leave 3; A 2 and B 3 leaves 7); for concurrency the union of
     * both sides' live leases (A 2 and B 3 leaves 5; the other keys none).
     */
    @Test
    void splitBrain_eachSideAdmitsAloneAndTheMergeKeepsTheLargerConsumption() throws Exception {
        try (FaultCluster cluster = new FaultCluster("faults-split", 6031, 2)
                .property("hazelcast.merge.first.run.delay.seconds", "5")
                .property("hazelcast.merge.next.run.delay.seconds", "2")) {
            long t0 = System.nanoTime();
            MemberProcess a = cluster.launch(0, List.of(0));
            MemberProcess b = cluster.launch(1, List.of(1));
            a.awaitOutput(FaultCluster.STARTED, FaultCluster.START_TIMEOUT);
            b.awaitOutput(FaultCluster.STARTED, FaultCluster.START_TIMEOUT);
            long aStarted = System.nanoTime();
            Duration timeout = Duration.ofSeconds(5);
            HazelcastInstance clientA = cluster.client(timeout, 0);
            HazelcastInstance clientB = cluster.client(timeout, 1);
            FaultCluster.awaitMembers(clientA, 1, Duration.ofSeconds(30));
            FaultCluster.awaitMembers(clientB, 1, Duration.ofSeconds(30));
            RateLimiters sideA = HazelcastRateLimiters.create(clientA);
            RateLimiters sideB = HazelcastRateLimiters.create(clientB);
            Windows.avoidBoundary(DAY, Duration.ofSeconds(120));
            LimiterOptions options = LimiterOptions.builder().decisionTimeout(timeout).build();

            List<Lease> held = new ArrayList<>(); // concurrency leases stay held until the end
            for (LimitSpec spec : SPECS) {
                for (Split split : SPLITS) {
                    String name = name(spec, split);
                    held.addAll(take(sideA.limiter(name, spec, options), split.a, "A " + name));
                    // Leases granted by both sides in one millisecond share a token and merge into one
                    // (FaultMergeLeaseCollisionTest); keep the sides a few milliseconds apart.
                    MemberProcess.sleep(5);
                    held.addAll(take(sideB.limiter(name, spec, options), split.b, "B " + name));
                    if (split.a == LIMIT) { // each side has admitted the full limit; now it refuses
                        assertFalse(sideA.limiter(name, spec, options).tryAcquire(1).isAcquired(), "A " + name);
                        assertFalse(sideB.limiter(name, spec, options).tryAcquire(1).isAcquired(), "B " + name);
                    }
                }
            }
            long splitDone = System.nanoTime();
            String before = "A " + rawStates(clientA, sideA) + "; B " + rawStates(clientB, sideB);
            assertEquals(1, clientA.getCluster().getMembers().size(), "side A alone while split");
            assertEquals(1, clientB.getCluster().getMembers().size(), "side B alone while split");
            System.out.printf("[faults] scenario 4: members started after %d ms, split phase took %d ms%n",
                    TimeUnit.NANOSECONDS.toMillis(aStarted - t0), TimeUnit.NANOSECONDS.toMillis(splitDone - aStarted));
            a.command("tcp-ip-add " + cluster.address(1));
            a.awaitOutput("tcp-ip member", Duration.ofSeconds(30));
            long healAt = System.nanoTime();

            HazelcastInstance merged = cluster.client(timeout);
            FaultCluster.awaitMembers(merged, 2, Duration.ofSeconds(60));
            long mergedAt = System.nanoTime();
            RateLimiters after = HazelcastRateLimiters.create(merged);
            Map<String, Long> expected = new LinkedHashMap<>();
            for (LimitSpec spec : SPECS) {
                for (Split split : SPLITS) {
                    long used = spec instanceof LimitSpec.Concurrency ? split.a + split.b : Math.max(split.a, split.b);
                    expected.put(name(spec, split), Math.max(0, LIMIT - used));
                }
            }
            Map<String, Long> actual = new LinkedHashMap<>();
            try {
                FaultCluster.await(() -> {
                    for (LimitSpec spec : SPECS) {
                        for (Split split : SPLITS) {
                            String name = name(spec, split);
                            actual.put(name, after.limiter(name, spec, options).tryAcquire(0).remaining());
                        }
                    }
                    return actual.equals(expected);
                }, Duration.ofSeconds(30), () -> "remaining after the merge " + actual + ", expected " + expected);
            } finally {
                System.out.println("[faults] scenario 4: concurrency states before the merge: " + before
                        + "; after: " + rawStates(merged, after));
                System.out.printf("[faults] scenario 4: clusters met %d ms after B was added to A's list; remaining"
                                + " after the merge (%d ms later): %s%n", TimeUnit.NANOSECONDS.toMillis(mergedAt - healAt),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - mergedAt), actual);
            }
            for (LimitSpec spec : SPECS) {
                Lease next = after.limiter(name(spec, SPLITS.get(3)), spec, options).tryAcquire(1);
                assertFalse(next.isAcquired(), spec.algorithm() + ": a spent key stays spent after the merge");
            }
            after.close();
            sideA.close();
            sideB.close();
        }
    }

    /** The stored {@code long[]} of each concurrency key, for diagnosis. */
    private static String rawStates(HazelcastInstance client, RateLimiters limiters) {
        StringBuilder out = new StringBuilder();
        LimitSpec spec = SPECS.get(SPECS.size() - 1);
        for (Split split : SPLITS) {
            String key = limiters.limiter(name(spec, split), spec, LimiterOptions.defaults()).key();
            Object state = client.getMap("sluice").get(key);
            out.append(split.name).append('=').append(state instanceof long[] l ? Arrays.toString(l) : state)
                    .append(' ');
        }
        return out.toString();
    }

    private static String name(LimitSpec spec, Split split) {
        return "split-" + spec.algorithm() + "-" + split.name;
    }

    private static List<Lease> take(RateLimiter limiter, int permits, String what) {
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < permits; i++) {
            Lease lease = limiter.tryAcquire(1);
            assertTrue(lease.isAcquired() && !lease.isDegraded(), what + " permit " + (i + 1) + ": " + lease);
            leases.add(lease);
        }
        return leases;
    }
}
