package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.algorithm.Algorithms;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.function.Executable;

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
     * Scenario 4b: one lease per side, long enough to outlive the heal, the merge and scenario 4's checks on a
     * loaded machine (where those took over ten seconds).
     */
    private static final LimitSpec.Concurrency LEASES = LimitSpec.concurrency(2, Duration.ofSeconds(24));
    /** Between the first and the second lease of a scenario 4b key. */
    private static final Duration LEASE_GAP = Duration.ofMillis(2_500);
    /** Members and test share this machine's clock: entry expiry and state times differ by the cluster clock offset. */
    private static final long CLOCK_TOLERANCE_MILLIS = 100;
    /** Hazelcast keeps expiry in whole seconds, rounded down; stores add this second so an entry outlives its state. */
    private static final long EXPIRY_ROUNDING_MILLIS = 1_000;
    /** Scenario 4b keys, named by the side whose lease comes first. */
    private static final List<String> EXPIRY_KEYS = List.of("split-expiry-b-first", "split-expiry-a-first");

    /**
     * Member A and member B (free ports) start at once, each with a TCP-IP list of only itself: two
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
     *
     * <p>Scenario 4b, the merged entry's expiry: on two keys of {@link #LEASES} ({@code concurrency(2, 24 s)}),
     * one lease per side, the second {@link #LEASE_GAP} after the first (B's first on one key, A's first on the
     * other), taken by limiters closed at once, so no renewal rewrites the entries (a crashed holder, or one
     * between renewals). Whichever side merges, on one key the entry merged in expires 2.5 s before the merged
     * state. Expected ({@code SluiceMergePolicy}): after the merge both leases are held; the entry expires no
     * earlier than the state (its latest lease); once the first lease has expired (plus the rounding second)
     * one permit is free and a second is refused while the later lease lives: never a third permit on a limit
     * of 2. Before the fix the entry took the merging entry's expiry, died with the first lease, and the healed
     * cluster granted two more permits beside the live one.
     */
    @Test
    void splitBrain_eachSideAdmitsAloneAndTheMergeKeepsTheLargerConsumption() throws Exception {
        try (FaultCluster cluster = new FaultCluster("faults-split", 2)
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
            leaseWithoutRenewal(sideB, EXPIRY_KEYS.get(0), options, "B first");
            leaseWithoutRenewal(sideA, EXPIRY_KEYS.get(1), options, "A first");
            long earlyExpiry = System.currentTimeMillis() + LEASES.leaseDurationMillis(); // the first leases' latest
            MemberProcess.sleep(LEASE_GAP.toMillis()); // the time between the leases is what this scenario is about
            leaseWithoutRenewal(sideA, EXPIRY_KEYS.get(0), options, "A second");
            leaseWithoutRenewal(sideB, EXPIRY_KEYS.get(1), options, "B second");
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
            // Scenario 4b's merged states first: its leases are already running out.
            MergedLeases mergedLeases = awaitMergedLeases(merged, after, options, earlyExpiry);
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
            mergedEntriesOutliveTheFirstLease(mergedLeases, after, options, earlyExpiry, mergedAt);
            after.close();
            sideA.close();
            sideB.close();
        }
    }

    /** Takes one lease and closes its limiter, which stops its renewal and leaves the lease to expire. */
    private static void leaseWithoutRenewal(RateLimiters side, String name, LimiterOptions options, String what) {
        RateLimiter limiter = side.limiter(name, LEASES, options);
        take(limiter, 1, what + " " + name);
        limiter.close();
    }

    /** Scenario 4b's keys once both their leases are held: each state and its entry's expiration time. */
    private record MergedLeases(Map<String, long[]> states, Map<String, Long> expirations) {}

    private static MergedLeases awaitMergedLeases(HazelcastInstance client, RateLimiters after,
            LimiterOptions options, long earlyExpiry) {
        IMap<String, long[]> map = client.getMap("sluice");
        Map<String, long[]> states = new LinkedHashMap<>();
        Map<String, Long> expirations = new LinkedHashMap<>();
        for (String name : EXPIRY_KEYS) {
            RateLimiter limiter = after.limiter(name, LEASES, options);
            // Both leases held: the merge of this key is done, and it came before the first lease expired.
            FaultCluster.await(() -> limiter.tryAcquire(0).remaining() == 0,
                    Duration.ofMillis(Math.max(0, earlyExpiry - System.currentTimeMillis())),
                    () -> name + ": both leases are not held before the first expires (the merge came too late to"
                            + " test; state " + Arrays.toString(SluiceHazelcast.stateOf(map.get(limiter.key()))) + ")");
            states.put(name, SluiceHazelcast.stateOf(map.get(limiter.key())));
            expirations.put(name, map.getEntryView(limiter.key()).getExpirationTime());
            limiter.close();
        }
        return new MergedLeases(states, expirations);
    }

    /** Scenario 4b after the merge; see the test's comment. */
    private static void mergedEntriesOutliveTheFirstLease(MergedLeases merged, RateLimiters after,
            LimiterOptions options, long earlyExpiry, long mergedAt) {
        Map<String, long[]> states = merged.states();
        Map<String, Long> expirations = merged.expirations();
        long lateExpiry = EXPIRY_KEYS.stream().mapToLong(name -> Algorithms.expiresAt(states.get(name))).min()
                .orElseThrow();
        // Past the first leases' expiry and the rounding second: an entry that took a first lease's expiry is gone.
        long probeAt = earlyExpiry + EXPIRY_ROUNDING_MILLIS + CLOCK_TOLERANCE_MILLIS;
        long waited = Math.max(0, probeAt - System.currentTimeMillis());
        MemberProcess.sleep(waited); // leases expire with time: nothing to poll for
        Map<String, String> permits = new LinkedHashMap<>();
        for (String name : EXPIRY_KEYS) {
            RateLimiter limiter = after.limiter(name, LEASES, options);
            Lease free = limiter.tryAcquire(1);
            Lease beyond = limiter.tryAcquire(1);
            permits.put(name, free.isAcquired() + "/" + beyond.isAcquired());
            free.close();
            beyond.close();
            limiter.close();
        }
        long probedBy = System.currentTimeMillis();
        System.out.printf("[faults] scenario 4b: merged states %s, entries expire at %s; probed %d ms after the merge"
                        + " (waited %d ms), granted first/second %s%n", states.keySet().stream()
                        .map(n -> n + "=" + Arrays.toString(states.get(n))).toList(), expirations,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - mergedAt), waited, permits);
        assertTrue(probedBy < lateExpiry - CLOCK_TOLERANCE_MILLIS, "the probes ran at " + probedBy
                + ", after the second leases expired (" + lateExpiry + "): too slow to test");
        List<Executable> checks = new ArrayList<>();
        for (String name : EXPIRY_KEYS) {
            long expiresAt = Algorithms.expiresAt(states.get(name));
            checks.add(() -> assertTrue(expirations.get(name) >= expiresAt - CLOCK_TOLERANCE_MILLIS, name
                    + ": the merged entry expires at " + expirations.get(name) + ", "
                    + (expiresAt - expirations.get(name)) + " ms before its state (" + expiresAt + ")"));
            checks.add(() -> assertEquals("true/false", permits.get(name), name + ": permits granted (first/second)"
                    + " after the first lease expired, with the second live until " + expiresAt + "; true/true is a"
                    + " third permit on a limit of 2"));
        }
        assertAll(checks);
    }

    /** The stored {@code long[]} of each concurrency key, for diagnosis. */
    private static String rawStates(HazelcastInstance client, RateLimiters limiters) {
        StringBuilder out = new StringBuilder();
        LimitSpec spec = SPECS.get(SPECS.size() - 1);
        for (Split split : SPLITS) {
            String key = limiters.limiter(name(spec, split), spec, LimiterOptions.defaults()).key();
            Object state = client.getMap("sluice").get(key);
            out.append(split.name).append('=')
                    .append(state instanceof long[] l ? Arrays.toString(SluiceHazelcast.stateOf(l)) : state)
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
