package dev.sluice.hazelcast;

import dev.sluice.limiter.algorithm.StoredState;
import dev.sluice.limiter.Coalescing;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.EntryProcessor;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.store.StepRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A large state's backup runs the batch again at the primary's time instead of copying the state: the backup ends
 * with the very value the primary stored, a backup whose copy differs is left alone (and the primary asked to
 * resend), and after the owner is lost the promoted backup decides on exactly what the owner held.
 */
final class HazelcastReplayBackupTest {
    private static final long NOW = 1_700_000_000_321L;
    private static final LimitSpec.SlidingLog LOG = new LimitSpec.SlidingLog(1_000, 3_600_000);

    private static StepProcessor acquire(LimitSpec spec, long permits) {
        return new StepProcessor("map", new StepRequest("k", spec, Op.ACQUIRE, permits, 0, Durability.REPLICATED));
    }

    /** A log of {@code grants} single grants 40 ms apart, as the map stores it. */
    private static long[] log(int grants) {
        long[] state = null;
        for (int i = 0; i < grants; i++) {
            state = Algorithms.acquire(LOG, state, NOW + 40L * i, 1).state();
        }
        return StoredState.pack(state);
    }

    @Test
    void aLargeStatesBackup_runsTheBatchAgain_andEndsWithThePrimarysValue() {
        long[] start = log(800);
        assertTrue(start.length >= StepProcessor.DEFAULT_REPLAY_WORDS, start.length + " words");
        TestEntry primary = new TestEntry("k", start);
        TestEntry replica = new TestEntry("k", start.clone());
        StepProcessor step = acquire(LOG, 3);
        assertTrue(step.processAt(primary, NOW + 40L * 800).verdict(0).granted());
        EntryProcessor<String, long[], BatchResult> backup = step.getBackupProcessor();
        assertTrue(backup instanceof ReplayProcessor, String.valueOf(backup));
        assertTrue(((ReplayProcessor<BatchResult>) backup).replay(replica));
        assertArrayEquals(primary.value, replica.value);
        assertEquals(primary.ttlMillis, replica.ttlMillis);
    }

    @Test
    void aBackupWhoseCopyDiffers_isLeftAsItIs() {
        long[] start = log(800);
        TestEntry primary = new TestEntry("k", start);
        long[] older = log(799);
        TestEntry replica = new TestEntry("k", older);
        StepProcessor step = acquire(LOG, 1);
        step.processAt(primary, NOW + 40L * 800);
        ReplayProcessor<BatchResult> backup = (ReplayProcessor<BatchResult>) step.getBackupProcessor();
        assertFalse(backup.replay(replica), "a copy that missed a write is not replayed on");
        assertSame(older, replica.value);
        assertEquals(0, replica.writes);
        TestEntry gone = new TestEntry("k", null);
        assertFalse(backup.replay(gone), "nor is a copy that expired");
        assertEquals(0, gone.writes);
    }

    @Test
    void aSmallStatesBackup_andANewKeysBackup_copyTheState() {
        TestEntry small = new TestEntry("k", log(3));
        StepProcessor step = acquire(LOG, 1);
        step.processAt(small, NOW + 200);
        assertTrue(step.getBackupProcessor() instanceof SetStateProcessor);
        TestEntry fresh = new TestEntry("k", null);
        StepProcessor first = acquire(LOG, 1);
        first.processAt(fresh, NOW);
        assertTrue(first.getBackupProcessor() instanceof SetStateProcessor);
    }

    @Test
    void fingerprints_seeTheLengthTheHeaderAndTheLastWords() {
        long[] value = log(800);
        long base = ReplayProcessor.fingerprint(value);
        assertEquals(base, ReplayProcessor.fingerprint(value.clone()));
        for (int at : new int[] {0, 1, 2, value.length - 1}) {
            long[] changed = value.clone();
            changed[at]++;
            assertNotEquals(base, ReplayProcessor.fingerprint(changed), "word " + at);
        }
        assertNotEquals(base, ReplayProcessor.fingerprint(java.util.Arrays.copyOf(value, value.length + 1)));
        assertEquals(0, ReplayProcessor.fingerprint(null));
    }

    /** Two members, every change of an existing entry replayed; the owner dies; the survivor holds exactly its state. */
    @Test
    void afterTheOwnerIsLost_thePromotedBackupHoldsWhatTheOwnerHeld() throws Exception {
        int previous = StepProcessor.replayWords(0);
        List<HazelcastInstance> members = new ArrayList<>();
        try {
            startTwoMembers("sluice-replay", members);
            HazelcastInstance caller = members.get(0);
            RateLimiters limiters = HazelcastRateLimiters.create(caller, Coalescing.disabled());
            // What is asked after the owner's death waits for the promotion, which a loaded machine can stretch
            // past the default second: the test is about what the survivor holds, not how soon.
            LimiterOptions patient = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).maxRetries(10)
                    .build();
            PartitionedRateLimiter<String> log = limiters.partitioned("log", LimitSpec.slidingLog(500, Duration.ofHours(1)),
                    patient);
            PartitionedRateLimiter<String> leases = limiters.partitioned("leases",
                    LimitSpec.concurrency(300, Duration.ofHours(1)), patient);
            String key = remote(caller, log);
            String leaseKey = remote(caller, leases);
            for (int i = 0; i < 450; i++) {
                assertTrue(log.tryAcquire(key, 1).isAcquired());
            }
            List<Lease> held = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                Lease lease = leases.tryAcquire(leaseKey, 1);
                assertTrue(lease.isAcquired());
                held.add(lease);
            }
            held.get(7).close(); // a release (sent asynchronously), replayed too
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (leases.tryAcquire(leaseKey, 0).remaining() != 101 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            for (HazelcastInstance m : members) {
                if (!m.getCluster().getLocalMember().equals(caller.getCluster().getLocalMember())) {
                    m.getLifecycleService().terminate(); // the owner of both keys
                }
            }
            assertEquals(50, log.tryAcquire(key, 0).remaining(), "the log's 450 grants survived the owner");
            assertEquals(101, leases.tryAcquire(leaseKey, 0).remaining(), "the 199 leases survived the owner");
            limiters.close();
        } finally {
            members.forEach(m -> m.getLifecycleService().terminate());
            StepProcessor.replayWords(previous);
        }
    }

    /**
     * A backup made to differ from its primary (an older copy written into the backup replica) is repaired from the
     * primary once the next replay finds the difference: it ends with the primary's value, not at the key's next
     * write. Hazelcast's anti-entropy would not repair it: it compares replica versions only.
     */
    @Test
    void aDivergedBackup_isRepairedFromThePrimary() throws Exception {
        int previous = StepProcessor.replayWords(0);
        List<HazelcastInstance> members = new ArrayList<>();
        try {
            startTwoMembers("sluice-repair", members);
            HazelcastInstance caller = members.get(0); // holds the backup of a key the other member owns
            try (RateLimiters limiters = HazelcastRateLimiters.create(caller, Coalescing.disabled())) {
                PartitionedRateLimiter<String> log = limiters.partitioned("log", LimitSpec.slidingLog(500,
                        Duration.ofHours(1)));
                String id = remote(caller, log);
                String key = log.keyOf(id);
                com.hazelcast.map.IMap<String, long[]> map = caller.getMap("sluice");
                for (int i = 0; i < 5; i++) {
                    assertTrue(log.tryAcquire(id, 1).isAcquired());
                    Thread.sleep(2); // one run of the log a grant, so the states differ
                }
                long[] older = map.get(key);
                for (int i = 0; i < 5; i++) {
                    assertTrue(log.tryAcquire(id, 1).isAcquired());
                    Thread.sleep(2);
                }
                int partition = caller.getPartitionService().getPartition(key).getPartitionId();
                HazelcastInternals.PartitionRecords backup = HazelcastInternals.partitionRecords(caller, "sluice",
                        partition);
                backup.write(key, older, Duration.ofHours(1).toMillis()); // the backup misses five writes
                long repairedBefore = BackupRepairs.shared().repaired();
                assertTrue(log.tryAcquire(id, 1).isAcquired()); // its replay finds the difference
                long[] primary = map.get(key);
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                // The repair's count follows the resend's answer, which may come after the backup is written.
                while ((!java.util.Arrays.equals(primary, backup.read(key, true))
                        || BackupRepairs.shared().repaired() == repairedBefore) && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
                assertArrayEquals(primary, backup.read(key, true), "the backup holds the primary's value");
                assertTrue(BackupRepairs.shared().repaired() > repairedBefore);
            }
        } finally {
            members.forEach(m -> m.getLifecycleService().terminate());
            StepProcessor.replayWords(previous);
        }
    }

    /** Repairs beyond the bound of waiting keys are not dropped silently: each is logged and counted. */
    @Test
    void repairsBeyondTheBound_areEscalated() {
        BackupRepairs none = new BackupRepairs(0);
        none.request(null, "sluice", "k");
        assertEquals(1, none.escalated());
        assertEquals(0, none.pending());
    }

    /** Starts two members of cluster {@code name} on free ports into {@code members} (the caller terminates them). */
    private static void startTwoMembers(String name, List<HazelcastInstance> members) {
        int[] ports = FreePorts.take(2);
        List<String> addresses = FreePorts.addresses(ports);
        for (int port : ports) {
            Config config = SluiceMember.loopbackConfig(name, "127.0.0.1", port, addresses);
            config.setInstanceName(name + "-" + port);
            config.setProperty("hazelcast.partition.count", "31");
            config.setProperty("hazelcast.logging.type", "none");
            config.setProperty("hazelcast.shutdownhook.enabled", "false");
            members.add(Hazelcast.newHazelcastInstance(SluiceHazelcast.configure(config)));
        }
    }

    /** A partition whose key the member {@code caller} is not does not own. */
    private static String remote(HazelcastInstance caller, PartitionedRateLimiter<String> limiter) {
        for (int i = 0; ; i++) {
            if (!caller.getPartitionService().getPartition(limiter.keyOf("p" + i)).getOwner().localMember()) {
                return "p" + i;
            }
        }
    }
}
