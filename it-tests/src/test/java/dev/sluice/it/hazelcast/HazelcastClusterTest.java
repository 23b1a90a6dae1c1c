package dev.sluice.it.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.MapConfig;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Cluster behaviour on real time: idle state expires from the map, and budgets survive the loss of
 * their owner (replicated, and asynchronously replicated once the backup has landed) or reset with it (ephemeral). The owner-loss test terminates a member, so it
 * runs last.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class HazelcastClusterTest {
    private static final LimiterOptions OPTIONS = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10))
            .build();
    private static TestCluster cluster;
    private static List<RateLimiters> limiters;

    @BeforeAll
    static void start() {
        cluster = TestCluster.start("sluice-cluster", 3, null);
        limiters = cluster.members.stream().map(HazelcastRateLimiters::create).toList();
    }

    @AfterAll
    static void stop() {
        if (limiters != null) {
            limiters.forEach(RateLimiters::close);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static String unique(String what) {
        return what + "-" + UUID.randomUUID();
    }

    /**
     * Idle keys are written without a TTL and removed by the sweep of the member that owns them, a round over its
     * partitions every few seconds (the deadline is generous: it measures nothing).
     */
    @Test
    @Order(1)
    void idleState_disappearsFromTheMapAfterItExpires() {
        RateLimiter limiter = limiters.get(0).limiter(unique("idle"), LimitSpec.slidingLog(5, Duration.ofMillis(370)),
                OPTIONS);
        assertTrue(limiter.tryAcquire(1).isAcquired());
        var map = cluster.members.get(1).getMap("sluice");
        assertTrue(map.containsKey(limiter.key()), "stored");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (map.containsKey(limiter.key())) {
            assertTrue(System.nanoTime() < deadline, "entry still present after 60 s");
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    @Test
    @Order(2)
    void ephemeralLimiter_usesTheMapWithoutBackup() {
        RateLimiter limiter = limiters.get(0).limiter(unique("eph"), LimitSpec.tokenBucket(5, 1, Duration.ofHours(1)),
                LimiterOptions.builder().durability(Durability.EPHEMERAL).build());
        assertTrue(limiter.tryAcquire(2).isAcquired());
        assertTrue(cluster.members.get(2).getMap("sluice-ephemeral").containsKey(limiter.key()));
        assertFalse(cluster.members.get(2).getMap("sluice").containsKey(limiter.key()));
        assertEquals(3, limiters.get(2).limiter(limiter.name(), limiter.spec(), limiter.options()).tryAcquire(0)
                .remaining());
    }

    /**
     * An asynchronous-backup limiter lives in its own map, which Sluice configured with one asynchronous backup
     * and no synchronous one, and its backup copy does reach another member (a moment after the answer).
     */
    @Test
    @Order(2)
    void asyncBackupLimiter_usesTheMapWithOneAsyncBackupAndNoSyncBackup() {
        for (HazelcastInstance member : cluster.members) {
            MapConfig config = member.getConfig().getMapConfig("sluice-async-backup");
            assertEquals(0, config.getBackupCount(), "synchronous backups");
            assertEquals(1, config.getAsyncBackupCount(), "asynchronous backups");
            assertEquals(0, member.getConfig().getMapConfig("sluice").getAsyncBackupCount());
        }
        RateLimiter limiter = limiters.get(0).limiter(unique("async-backup"),
                LimitSpec.tokenBucket(5, 1, Duration.ofHours(1)),
                LimiterOptions.builder().durability(Durability.REPLICATED_ASYNC).build());
        assertTrue(limiter.tryAcquire(2).isAcquired());
        assertTrue(cluster.members.get(2).getMap("sluice-async-backup").containsKey(limiter.key()));
        assertFalse(cluster.members.get(2).getMap("sluice").containsKey(limiter.key()));
        assertFalse(cluster.members.get(2).getMap("sluice-ephemeral").containsKey(limiter.key()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (backupEntries("sluice-async-backup") < 1) {
            assertTrue(System.nanoTime() < deadline, "no backup copy on any member after 10 s");
            Thread.onSpinWait();
        }
        assertEquals(3, limiters.get(2).limiter(limiter.name(), limiter.spec(), limiter.options()).tryAcquire(0)
                .remaining());
    }

    private static long backupEntries(String map) {
        return cluster.members.stream().mapToLong(m -> m.getMap(map).getLocalMapStats().getBackupEntryCount()).sum();
    }

    /**
     * Hazelcast's {@code submitToKey} future continues every call on its default async executor, which
     * on a 2-core host (common-pool parallelism 1) is a new thread per call. Sluice's asynchronous path
     * must not pay that: a few thousand asynchronous decisions, from a member (keys local and remote) and
     * from a client, start only a handful of threads. Where the common pool has more parallelism no
     * thread is started per call either way, so this can fail only on small hosts, which is where it matters.
     */
    @Test
    @Order(3)
    void asyncDecisions_startNoThreadPerCall() {
        HazelcastInstance client = cluster.addClient(SluiceHazelcast.configure(cluster.clientConfig()));
        try (RateLimiters fromClient = HazelcastRateLimiters.create(client)) {
            var threads = ManagementFactory.getThreadMXBean();
            int calls = 3000;
            for (RateLimiters from : List.of(limiters.get(0), fromClient)) {
                String name = unique("async");
                from.limiter(name + "-warm-up", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)), OPTIONS)
                        .acquireAsync(1).join();
                long startedBefore = threads.getTotalStartedThreadCount();
                List<CompletableFuture<Lease>> decisions = new ArrayList<>();
                for (int i = 0; i < calls; i++) {
                    decisions.add(from.limiter(name + "-" + (i % 100), LimitSpec.fixedWindow(20, Duration.ofMinutes(1)),
                            OPTIONS).acquireAsync(1));
                }
                long granted = decisions.stream().map(CompletableFuture::join).filter(Lease::isAcquired).count();
                long started = threads.getTotalStartedThreadCount() - startedBefore;
                assertEquals(100 * 20, granted, "exactly 20 of 30 per key");
                assertTrue(started < 100, started + " threads started for " + calls + " asynchronous decisions");
            }
        }
    }

    /** An acknowledged decision survives the loss of the key's owner: the backup holds the exact state. */
    @Test
    @Order(4)
    void ownerTerminated_replicatedAndLandedAsyncBudgetsSurvive_ephemeralBudgetResets() {
        LimitSpec spec = LimitSpec.tokenBucket(10, 1, Duration.ofHours(1));
        HazelcastInstance any = cluster.members.get(0);
        String name = unique("survive");
        Member owner = any.getPartitionService().getPartition("sluice/" + name).getOwner();
        String ephemeralName;
        do {
            ephemeralName = unique("reset");
        } while (!any.getPartitionService().getPartition("sluice/" + ephemeralName).getOwner().equals(owner));
        int ownerIndex = indexOf(owner);
        RateLimiters caller = limiters.get((ownerIndex + 1) % 3);
        RateLimiters survivor = limiters.get((ownerIndex + 2) % 3);
        LimiterOptions ephemeral = OPTIONS.toBuilder().durability(Durability.EPHEMERAL).build();
        LimiterOptions asyncBackup = OPTIONS.toBuilder().durability(Durability.REPLICATED_ASYNC).build();
        assertTrue(caller.limiter(name, spec, OPTIONS).tryAcquire(7).isAcquired());
        assertTrue(caller.limiter(ephemeralName, spec, ephemeral).tryAcquire(7).isAcquired());
        long backupsBefore = backupEntries("sluice-async-backup");
        assertTrue(caller.limiter(name, spec, asyncBackup).tryAcquire(6).isAcquired());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (backupEntries("sluice-async-backup") <= backupsBefore) { // a quiet key: its backup has landed
            assertTrue(System.nanoTime() < deadline, "no asynchronous backup after 10 s");
            Thread.onSpinWait();
        }

        cluster.members.get(ownerIndex).getLifecycleService().terminate();

        assertEquals(3, survivor.limiter(name, spec, OPTIONS).tryAcquire(0).remaining(), "budget on the new owner");
        assertEquals(10, survivor.limiter(ephemeralName, spec, ephemeral).tryAcquire(0).remaining(),
                "an ephemeral budget is lost with its owner");
        assertEquals(4, survivor.limiter(name, spec, asyncBackup).tryAcquire(0).remaining(),
                "an asynchronous backup that had landed keeps the budget");
    }

    private static int indexOf(Member member) {
        for (int i = 0; i < cluster.members.size(); i++) {
            if (cluster.members.get(i).getCluster().getLocalMember().equals(member)) {
                return i;
            }
        }
        throw new AssertionError(member + " is not a member");
    }
}
