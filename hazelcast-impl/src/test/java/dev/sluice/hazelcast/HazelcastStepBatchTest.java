package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.store.StepRequest;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The processor with several requests of one key, on plain entries: they give the verdicts (and the final
 * state and TTL) of the same requests stepped one at a time; the backup writes exactly the primary's
 * stored value, and there is none when nothing changed.
 */
final class HazelcastStepBatchTest {
    private static final long NOW = 1_700_000_000_000L;
    private static final InternalSerializationService SERIALIZATION = new DefaultSerializationServiceBuilder()
            .addDataSerializableFactory(SluiceSerializerFactory.factoryId(), new SluiceSerializerFactory()).build();

    static List<LimitSpec> specs() {
        return List.of(LimitSpec.fixedWindow(5, Duration.ofMinutes(1)),
                LimitSpec.slidingWindow(5, Duration.ofMinutes(1), 4),
                LimitSpec.slidingLog(5, Duration.ofMinutes(1)),
                LimitSpec.slidingCounter(5, Duration.ofMinutes(1)),
                LimitSpec.tokenBucket(5, 1, Duration.ofSeconds(10)),
                LimitSpec.gcra(5, Duration.ofMinutes(1), 3),
                LimitSpec.concurrency(5, Duration.ofMinutes(1)));
    }

    private static StepRequest acquire(String key, LimitSpec spec, long permits) {
        return new StepRequest(key, spec, Op.ACQUIRE, permits, 0, Durability.REPLICATED);
    }

    @ParameterizedTest
    @MethodSource("specs")
    void process_severalRequestsOnOneKey_sameVerdictsStateAndTtlAsOneAtATime(LimitSpec spec) {
        List<StepRequest> requests = new ArrayList<>();
        for (long permits : new long[] {1, 2, 0, 99, 1, 3, 1, 0, 1}) { // 99 is out of range: that request fails alone
            requests.add(acquire("k", spec, permits));
        }
        // Sequential: one step per request on the stored state, as the one-request processor does.
        TestEntry sequential = new TestEntry("k", null);
        List<Object> expected = new ArrayList<>();
        for (StepRequest r : requests) {
            try {
                long[] before = sequential.state();
                Verdict v = r.apply(before, NOW);
                if (v.stateChanged(before)) {
                    SetStateProcessor.write(sequential, v.state(), v.ttlMillis());
                }
                expected.add(v.withoutState());
            } catch (IllegalArgumentException e) {
                expected.add(e.getMessage());
            }
        }

        TestEntry entry = new TestEntry("k", null);
        BatchResult result = new StepProcessor(requests).processAt(entry, NOW);
        assertEquals(requests.size(), result.size());
        for (int i = 0; i < requests.size(); i++) {
            if (expected.get(i) instanceof String message) {
                assertEquals(IllegalArgumentException.class, result.failure(i).getClass());
                assertEquals(message, result.failure(i).getMessage());
            } else {
                assertNull(result.failure(i), "request " + i);
                assertEquals(expected.get(i), result.verdict(i), "request " + i);
            }
        }
        assertArrayEquals(sequential.value, entry.value);
        assertEquals(sequential.ttlMillis, entry.ttlMillis);
        assertEquals(1, entry.writes, "one write for the whole batch");
    }

    @Test
    void process_concurrencyAcquireAndRelease_inOneRun_matchesSequential() {
        LimitSpec spec = LimitSpec.concurrency(2, Duration.ofMinutes(1));
        TestEntry seq = new TestEntry("k", null);
        Verdict a = acquire("k", spec, 1).apply(seq.state(), NOW);
        SetStateProcessor.write(seq, a.state(), a.ttlMillis());
        StepRequest release = new StepRequest("k", spec, Op.RELEASE, 0, a.token(), Durability.REPLICATED);
        Verdict r = release.apply(seq.state(), NOW);
        SetStateProcessor.write(seq, r.state(), r.ttlMillis());

        TestEntry entry = new TestEntry("k", null);
        BatchResult result = new StepProcessor(List.of(acquire("k", spec, 1), release))
                .processAt(entry, NOW);
        assertEquals(a.withoutState(), result.verdict(0));
        assertEquals(r.withoutState(), result.verdict(1));
        assertArrayEquals(seq.value, entry.value);
    }

    @Test
    void process_anotherAlgorithmsState_failsThatRequestOnlyAndKeepsTheState() {
        LimitSpec log = LimitSpec.slidingLog(3, Duration.ofMinutes(1));
        TestEntry entry = new TestEntry("k", null);
        Verdict first = acquire("k", log, 1).apply(null, NOW);
        SetStateProcessor.write(entry, first.state(), first.ttlMillis());
        long[] stored = entry.value;
        BatchResult result = new StepProcessor(List.of(
                acquire("k", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)), 1), acquire("k", log, 1)))
                .processAt(entry, NOW);
        assertEquals(IllegalStateException.class, result.failure(0).getClass());
        assertTrue(result.verdict(1).granted());
        assertEquals(1, result.verdict(1).remaining());
        assertTrue(entry.value != stored);
    }

    @Test
    void process_onlyRefusalsAndProbes_writesNothingAndHasNoBackup() {
        LimitSpec spec = LimitSpec.fixedWindow(1, Duration.ofMinutes(1));
        TestEntry entry = new TestEntry("k", null);
        Verdict v = acquire("k", spec, 1).apply(null, NOW);
        SetStateProcessor.write(entry, v.state(), v.ttlMillis());
        int writes = entry.writes;
        StepProcessor batch = new StepProcessor(List.of(acquire("k", spec, 1), acquire("k", spec, 0)));
        BatchResult result = batch.processAt(entry, NOW);
        assertTrue(!result.verdict(0).granted() && result.failure(1) == null);
        assertEquals(writes, entry.writes);
        assertNull(batch.getBackupProcessor());
    }

    @Test
    void getBackupProcessor_releaseThenProbe_copiesThePrimarysValue() {
        LimitSpec spec = LimitSpec.concurrency(1, Duration.ofMinutes(1));
        TestEntry entry = new TestEntry("k", null);
        Verdict a = acquire("k", spec, 1).apply(null, NOW);
        SetStateProcessor.write(entry, a.state(), a.ttlMillis());
        StepProcessor batch = new StepProcessor(List.of(
                new StepRequest("k", spec, Op.RELEASE, 0, a.token(), Durability.REPLICATED),
                acquire("k", spec, 0)));
        batch.processAt(entry, NOW);
        SetStateProcessor<?> backup = assertInstanceOf(SetStateProcessor.class, batch.getBackupProcessor());
        SetStateProcessor<?> copy = (SetStateProcessor<?>) SERIALIZATION.toObject(SERIALIZATION.toData(backup));
        TestEntry replica = new TestEntry("k", new long[] {1});
        copy.process(replica);
        assertArrayEquals(entry.value, replica.value);
    }

    @Test
    void getBackupProcessor_grantsAfterRefusals_copiesThePackedValueThePrimaryStored() {
        LimitSpec spec = LimitSpec.slidingLog(3, Duration.ofMinutes(1));
        TestEntry entry = new TestEntry("k", null);
        StepProcessor batch = new StepProcessor(List.of(acquire("k", spec, 2), acquire("k", spec, 2),
                acquire("k", spec, 1)));
        BatchResult result = batch.processAt(entry, NOW);
        assertTrue(result.verdict(0).granted() && !result.verdict(1).granted() && result.verdict(2).granted());
        SetStateProcessor<?> backup = assertInstanceOf(SetStateProcessor.class, batch.getBackupProcessor());
        assertSame(entry.value, backup.state(), "the stored (packed) value itself, not a second packing");
        SetStateProcessor<?> copy = (SetStateProcessor<?>) SERIALIZATION.toObject(SERIALIZATION.toData(backup));
        TestEntry replica = new TestEntry("k", null);
        copy.process(replica);
        assertArrayEquals(entry.value, replica.value);
        assertEquals(entry.ttlMillis, replica.ttlMillis);
        assertEquals(1, replica.writes);
    }

    @Test
    void serialization_roundTrips() {
        LimitSpec spec = LimitSpec.slidingWindow(9, Duration.ofSeconds(6), 3);
        List<StepRequest> requests = List.of(acquire("x", spec, 2),
                new StepRequest("x", LimitSpec.concurrency(2), Op.RENEW, 0, 42, Durability.REPLICATED),
                acquire("x", spec, 1));
        StepProcessor back = (StepProcessor) SERIALIZATION.toObject(SERIALIZATION.toData(new StepProcessor(requests)));
        assertEquals(3, back.size());
        assertEquals(new StepProcessor(requests).toString(), back.toString());
        TestEntry x1 = new TestEntry("x", null);
        TestEntry x2 = new TestEntry("x", null);
        assertEquals(new StepProcessor(requests).processAt(x1, NOW).toString(), back.processAt(x2, NOW).toString());
        assertArrayEquals(x1.value, x2.value);

        BatchResult result = new BatchResult(3);
        result.verdict(0, Verdict.of(false, 3, 10, 250, 900, 77));
        result.failure(1, new IllegalArgumentException("permits must be ..."));
        result.failure(2, new UnsupportedOperationException("odd"));
        BatchResult r = (BatchResult) SERIALIZATION.toObject(SERIALIZATION.toData(result));
        assertEquals(Verdict.of(false, 3, 10, 250, 900, 77), r.verdict(0));
        assertEquals(IllegalArgumentException.class, r.failure(1).getClass());
        assertEquals("permits must be ...", r.failure(1).getMessage());
        assertTrue(r.failure(2).getMessage().contains("odd"));
    }

    /** The multi-key batch and its backup of format 2 are retired: their ids stay reserved, never reused. */
    @Test
    void retiredClassIds_areNotCreated() {
        SluiceSerializerFactory factory = new SluiceSerializerFactory();
        for (int retired : new int[] {SluiceSerializerFactory.RETIRED_VERDICT, SluiceSerializerFactory.RETIRED_BATCH,
                SluiceSerializerFactory.RETIRED_BATCH_BACKUP}) {
            assertNull(factory.create(retired), "class id " + retired);
        }
    }
}
