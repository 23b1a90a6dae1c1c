package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.map.EntryProcessor;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.store.StepRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The entry processors on a plain entry: what is written, with which TTL, and what the backup gets. */
final class HazelcastProcessorTest {
    private static final LimitSpec ONE_PER_HOUR = LimitSpec.tokenBucket(1, 1, Duration.ofHours(1));

    private static StepProcessor acquire(LimitSpec spec, long permits) {
        return new StepProcessor(new StepRequest("k", spec, Op.ACQUIRE, permits, 0, Durability.REPLICATED));
    }

    @Test
    void process_grant_writesStateWithTtlAndBackupCopiesIt() {
        TestEntry entry = new TestEntry("k", null);
        StepProcessor step = acquire(ONE_PER_HOUR, 1);
        assertTrue(step.process(entry).verdict(0).granted());
        assertNotNull(entry.value);
        // The state's hour plus the slack that keeps the entry alive past Hazelcast's whole-second expiry.
        assertEquals(3_600_000 + SetStateProcessor.EXPIRY_SLACK_MILLIS, entry.ttlMillis);

        EntryProcessor<String, long[], BatchResult> backup = step.getBackupProcessor();
        assertTrue(backup instanceof SetStateProcessor);
        TestEntry replica = new TestEntry("k", null);
        backup.process(replica);
        assertArrayEquals(entry.value, replica.value, "the backup writes the primary's state, it does not decide again");
        assertEquals(entry.ttlMillis, replica.ttlMillis);
    }

    /** A refusal changes nothing, so it must cost neither a write nor a backup round trip. */
    @Test
    void process_refusal_writesNothingAndHasNoBackup() {
        TestEntry entry = new TestEntry("k", null);
        acquire(ONE_PER_HOUR, 1).process(entry);
        long[] stored = entry.value;
        int writes = entry.writes;

        StepProcessor refused = acquire(ONE_PER_HOUR, 1);
        assertFalse(refused.process(entry).verdict(0).granted());
        assertNull(refused.getBackupProcessor());
        assertSame(stored, entry.value);
        assertEquals(writes, entry.writes);
    }

    @Test
    void process_probe_hasNoBackup() {
        TestEntry entry = new TestEntry("k", null);
        StepProcessor probe = acquire(ONE_PER_HOUR, 0);
        assertTrue(probe.process(entry).verdict(0).granted());
        assertNull(probe.getBackupProcessor());
        assertNull(entry.value);
        assertEquals(0, entry.writes);
    }

    /** Releasing the last lease keeps the emptied state (its last fencing token) on primary and backup alike. */
    @Test
    void process_releaseOfLastLease_backupCopiesTheEmptiedState() {
        LimitSpec spec = LimitSpec.concurrency(2, Duration.ofMinutes(1));
        TestEntry entry = new TestEntry("k", null);
        long token = acquire(spec, 1).process(entry).verdict(0).token();
        TestEntry replica = new TestEntry("k", entry.value);

        StepProcessor release = new StepProcessor(
                new StepRequest("k", spec, Op.RELEASE, 0, token, Durability.REPLICATED));
        assertTrue(release.process(entry).verdict(0).granted());
        release.getBackupProcessor().process(replica);
        assertArrayEquals(entry.value, replica.value);
        assertTrue(acquire(spec, 2).process(entry).verdict(0).token() > token, "the next token still increases");
    }

    /**
     * Hazelcast delivers an operation at least once: a concurrency acquisition run again (a retry after its
     * answer was lost) used to grant a second lease. It now returns the first and writes nothing.
     */
    @Test
    void process_concurrencyAcquisitionRunTwice_returnsTheSameLeaseAndWritesOnce() {
        LimitSpec spec = LimitSpec.concurrency(1, Duration.ofMinutes(1));
        StepRequest request = new StepRequest("k", spec, Op.ACQUIRE, 1, 0x7E57_0000_0001L, Durability.REPLICATED);
        TestEntry entry = new TestEntry("k", null);
        long token = new StepProcessor(request).process(entry).verdict(0).token();
        StepProcessor again = new StepProcessor(request);
        var retried = again.process(entry).verdict(0);
        assertTrue(retried.granted());
        assertEquals(token, retried.token());
        assertEquals(1, entry.writes);
        assertNull(again.getBackupProcessor());
    }

    /** The stored array is the live instance under OBJECT format: a step must never change it. */
    @Test
    void process_neverMutatesTheStoredArray() {
        LimitSpec spec = LimitSpec.fixedWindow(5, Duration.ofHours(1));
        TestEntry entry = new TestEntry("k", null);
        acquire(spec, 1).process(entry);
        long[] stored = entry.value;
        long[] copy = stored.clone();
        acquire(spec, 2).process(entry);
        assertArrayEquals(copy, stored);
    }

    @Test
    void spec_roundTripsEveryAlgorithm() {
        for (LimitSpec spec : new LimitSpec[] {
                LimitSpec.fixedWindow(5, Duration.ofSeconds(3)),
                LimitSpec.slidingWindow(5, Duration.ofSeconds(6), 3),
                LimitSpec.slidingLog(5, Duration.ofSeconds(3)),
                LimitSpec.slidingCounter(5, Duration.ofSeconds(3)),
                LimitSpec.tokenBucket(5, 2, Duration.ofSeconds(3)),
                LimitSpec.gcra(7, Duration.ofSeconds(3), 4),
                LimitSpec.concurrency(5, Duration.ofSeconds(3))}) {
            assertEquals(spec, acquire(spec, 1).spec());
        }
    }
}
