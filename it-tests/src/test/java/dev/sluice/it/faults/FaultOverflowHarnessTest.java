package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceMember;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The adversary the suite keeps: for each seed, three member JVMs of different heaps, collectors and bounds (so
 * that overflow cells are in use on some and not on others), a client, limiters of every rate algorithm and a
 * composite under one prefix, and a random sequence of floods of new keys (spread, or aimed at one partition),
 * victims' acquisitions, refunds, member kills (SIGKILL) and restarts. After each run every victim key's grants
 * less what its refunds gave back stay within its limit (the windows and refill times are far longer than a run,
 * so a key's own exact history allows exactly its limit, or twice it for a fixed window whose boundary falls in the
 * run), and each member holds no more entries than its bound, or
 * than it inherited at a failover (a member cannot refuse the partitions it takes over; it admits nothing new
 * beyond its bound).
 *
 * <p>CI runs {@link #SEEDS}; {@code -Dsluice.harness.seeds=1-100} (or a list, {@code 3,17}) runs others. A failing
 * seed names the command that replays it.
 */
@ExtendWith(Reaper.class)
final class FaultOverflowHarnessTest {
    static final String SEEDS_PROPERTY = "sluice.harness.seeds";
    private static final String SEEDS = "1,2";
    private static final int LIMIT = 5;
    private static final Duration WINDOW = Duration.ofHours(2);
    private static final int[] BOUNDS = {300, 450, 600};
    private static final String[] HEAPS = {"160m", "192m", "256m"};
    private static final String[] COLLECTORS = {"-XX:+UseParallelGC", "-XX:+UseG1GC", "-XX:+UseSerialGC"};
    /** One cell a partition (71): the same on every member. */
    private static final int CELLS = 71;
    private static final int VICTIMS = 40;
    private static final LimiterOptions OPTIONS = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10))
            .build();

    private static final Map<String, LimitSpec> POLICIES = new LinkedHashMap<>();

    static {
        // Every refill is slower than a run: each key's own history allows exactly LIMIT in it.
        POLICIES.put("fixed", LimitSpec.fixedWindow(LIMIT, WINDOW));
        POLICIES.put("segments", LimitSpec.slidingWindow(LIMIT, WINDOW, 4));
        POLICIES.put("log", LimitSpec.slidingLog(LIMIT, WINDOW));
        POLICIES.put("counter", LimitSpec.slidingCounter(LIMIT, WINDOW));
        POLICIES.put("bucket", LimitSpec.tokenBucket(LIMIT, 1, WINDOW));
        POLICIES.put("gcra", LimitSpec.gcra(LIMIT, WINDOW, LIMIT));
        POLICIES.put("composite", LimitSpec.allOf(LimitSpec.fixedWindow(LIMIT + 3, WINDOW),
                LimitSpec.slidingLog(LIMIT, WINDOW)));
    }

    @Test
    void randomFloodsKillsAndRestarts_neverGrantBeyondAKeysOwnHistory_norHoldBeyondTheBound() throws Exception {
        List<String> failures = new ArrayList<>();
        for (long seed : seeds(System.getProperty(SEEDS_PROPERTY, SEEDS))) {
            // A bound per seed, not per run, so that a run of a hundred seeds is not cut short.
            String failure = assertTimeoutPreemptively(Duration.ofMinutes(3), () -> run(seed),
                    () -> "seed " + seed + " ran past 3 minutes");
            if (failure != null) {
                failures.add("seed " + seed + ": " + failure + "\n  replay: mvn -B -pl it-tests -am verify"
                        + " -Dtest=FaultOverflowHarnessTest -Dsurefire.failIfNoSpecifiedTests=false -D"
                        + SEEDS_PROPERTY + "=" + seed);
            }
        }
        if (!failures.isEmpty()) {
            fail(String.join("\n", failures));
        }
    }

    /** One seed's run; the first broken invariant, or {@code null}. */
    private static String run(long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        long started = System.currentTimeMillis();
        FaultCluster cluster = new FaultCluster("faults-harness-" + seed, 3)
                .property(SluiceMember.OVERFLOW_CELLS_PROPERTY, Integer.toString(CELLS));
        try (cluster) {
            for (int i = 0; i < 3; i++) {
                configure(cluster, i);
                List<Integer> join = IntStream.rangeClosed(0, i).boxed().toList();
                cluster.launch(i, join).awaitOutput(FaultCluster.STARTED, FaultCluster.START_TIMEOUT);
            }
            HazelcastInstance client = cluster.client(Duration.ofSeconds(10));
            FaultCluster.awaitMembers(client, 3, Duration.ofSeconds(30));
            FaultCluster.warmUp(client);
            RateLimiters limiters = HazelcastRateLimiters.create(client);
            Map<String, PartitionedRateLimiter<String>> limiter = new LinkedHashMap<>();
            POLICIES.forEach((name, spec) -> limiter.put(name, limiters.partitioned("h-" + name, spec, OPTIONS)));
            List<String> names = new ArrayList<>(POLICIES.keySet());
            Map<String, Integer> net = new HashMap<>(); // grants less refunds, per victim key
            List<Map.Entry<String, Lease>> refundable = new ArrayList<>();
            int floods = 0;
            int kills = 0;
            int restarts = 0;
            Map<Long, Long> ceilings = new HashMap<>(); // by member port: the most entries it may hold
            for (int action = 0; action < 30; action++) {
                int kind = random.nextInt(10);
                if (kind < 3) {
                    flood(client, limiter.get(names.get(random.nextInt(names.size()))), random, seed, action);
                    floods++;
                } else if (kind < 7) {
                    // Victims spend their whole budget and ask on: a fresh budget anywhere shows as a grant too many.
                    for (int i = 0; i < 20; i++) {
                        String name = names.get(random.nextInt(names.size()));
                        String id = "victim-" + random.nextInt(VICTIMS);
                        for (int ask = 0; ask < 4; ask++) {
                            Lease lease = limiter.get(name).tryAcquire(id, 1);
                            if (lease.isAcquired()) {
                                net.merge(name + "/" + id, 1, Integer::sum);
                                refundable.add(Map.entry(name + "/" + id, lease));
                            }
                        }
                    }
                } else if (kind == 7 && !refundable.isEmpty()) {
                    for (int i = 0; i < 5 && !refundable.isEmpty(); i++) {
                        Map.Entry<String, Lease> grant = refundable.remove(random.nextInt(refundable.size()));
                        if (grant.getValue().refund().get(30, TimeUnit.SECONDS)) {
                            net.merge(grant.getKey(), -1, Integer::sum);
                        }
                    }
                } else if (kind == 8 && cluster.live().size() == 3) {
                    int victim = cluster.live().get(random.nextInt(3));
                    cluster.kill(victim);
                    kills++;
                    FaultCluster.awaitMembers(client, 2, Duration.ofSeconds(60));
                    awaitSafe(client);
                    inherit(client, ceilings);
                } else if (kind == 9 && cluster.live().size() < 3) {
                    int dead = IntStream.range(0, 3).filter(i -> !cluster.live().contains(i)).findFirst().orElseThrow();
                    configure(cluster, dead);
                    cluster.restart(dead);
                    restarts++;
                    FaultCluster.awaitMembers(client, 3, Duration.ofSeconds(60));
                    awaitSafe(client);
                    inherit(client, ceilings);
                }
            }
            // A fixed window's boundary inside the run (a second either side for the members' clocks) allows its limit
            // once more; no other policy returns a permit within a run.
            long window = WINDOW.toMillis();
            boolean crossed = (started - 1_000) / window != (System.currentTimeMillis() + 1_000) / window;
            for (Map.Entry<String, Integer> e : net.entrySet()) {
                int allowed = crossed && e.getKey().startsWith("fixed/") ? 2 * LIMIT : LIMIT;
                if (e.getValue() > allowed) {
                    return e.getKey() + " was granted " + e.getValue() + " net of refunds, limit " + allowed;
                }
            }
            for (long[] stats : entries(client)) {
                long ceiling = Math.max(stats[1], ceilings.getOrDefault(stats[2], 0L));
                if (stats[0] > ceiling + 64) {
                    return "member :" + stats[2] + " held " + stats[0] + " entries, bound " + stats[1]
                            + ", inherited at most " + ceilings.getOrDefault(stats[2], 0L);
                }
            }
            System.out.println("[faults] harness seed " + seed + ": " + floods + " floods, " + kills + " kills, "
                    + restarts + " restarts, " + net.size()
                    + " victim keys granted, overflow decisions " + limiters.storeStatistics().overflowDecisions());
            limiters.close();
            return null;
        }
    }

    /** Member {@code i}'s heap, collector and bound, for its next start. */
    private static void configure(FaultCluster cluster, int i) {
        cluster.maxHeap(HEAPS[i]).property(MemberProcess.COLLECTOR_PROPERTY, COLLECTORS[i])
                .property(SluiceMember.MAX_KEYS_PROPERTY, Integer.toString(BOUNDS[i]));
    }

    /** New keys of one limiter, a few hundred: spread, or all in one partition. */
    private static void flood(HazelcastInstance client, PartitionedRateLimiter<String> limiter, SplittableRandom random,
            long seed, int action) {
        boolean aimed = random.nextBoolean();
        int target = random.nextInt(71);
        List<CompletableFuture<Lease>> leases = new ArrayList<>();
        for (int n = 0, sent = 0; sent < 400; n++) {
            String id = "flood-" + seed + "-" + action + "-" + n;
            if (aimed && client.getPartitionService().getPartition(limiter.keyOf(id)).getPartitionId() != target) {
                continue;
            }
            leases.add(limiter.acquireAsync(id, 1));
            sent++;
        }
        leases.forEach(CompletableFuture::join);
    }

    /** Waits until every partition has an owner the client can reach and a backup again. */
    private static void awaitSafe(HazelcastInstance client) throws Exception {
        FaultCluster.await(() -> {
            try {
                return client.getExecutorService("faults-harness").submit(new Safe()).get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(90), () -> "the cluster did not become safe");
    }

    /** Records what each member holds right after a failover or join: it may hold that much from now on. */
    private static void inherit(HazelcastInstance client, Map<Long, Long> ceilings) throws Exception {
        for (long[] stats : entries(client)) {
            ceilings.merge(stats[2], stats[0], Math::max);
        }
    }

    /** Each member's owned entries of map {@code sluice}, its bound and its port. */
    private static List<long[]> entries(HazelcastInstance client) throws Exception {
        List<long[]> all = new ArrayList<>();
        for (var f : client.getExecutorService("faults-harness").submitToAllMembers(new Entries()).values()) {
            all.add(f.get(30, TimeUnit.SECONDS));
        }
        return all;
    }

    /** Runs on a member: whether the cluster is safe (every replica in place). */
    static final class Safe implements Callable<Boolean>, Serializable, HazelcastInstanceAware {
        private static final long serialVersionUID = 1L;
        private transient HazelcastInstance member;

        @Override
        public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
            this.member = hazelcastInstance;
        }

        @Override
        public Boolean call() {
            return member.getPartitionService().isClusterSafe();
        }
    }

    /** Runs on a member: its owned entries of map {@code sluice}, and its bound. */
    static final class Entries implements Callable<long[]>, Serializable, HazelcastInstanceAware {
        private static final long serialVersionUID = 1L;
        private transient HazelcastInstance member;

        @Override
        public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
            this.member = hazelcastInstance;
        }

        @Override
        public long[] call() {
            long bound = Long.getLong(SluiceMember.MAX_KEYS_PROPERTY, Long.MAX_VALUE);
            return new long[] {member.getMap("sluice").getLocalMapStats().getOwnedEntryCount(), bound,
                    member.getCluster().getLocalMember().getAddress().getPort()};
        }
    }

    /** Seeds from {@code 1-100} or {@code 3,17}. */
    static List<Long> seeds(String spec) {
        List<Long> seeds = new ArrayList<>();
        for (String part : spec.split(",")) {
            String p = part.trim();
            int dash = p.indexOf('-', 1);
            if (dash > 0) {
                for (long s = Long.parseLong(p.substring(0, dash)); s <= Long.parseLong(p.substring(dash + 1)); s++) {
                    seeds.add(s);
                }
            } else if (!p.isEmpty()) {
                seeds.add(Long.parseLong(p));
            }
        }
        return seeds;
    }
}
