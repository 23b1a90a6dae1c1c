package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.map.EntryProcessor;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.spi.StepRequest;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * The batch processor on plain entries: several requests on one key give the verdicts (and the final
 * state and TTL) of the same requests stepped one at a time; the backup writes exactly the primary's
 * states, per partition operation, and nothing for keys that did not change.
 */
final class HazelcastBatchProcessorTest {
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
        BatchResult result = new BatchProcessor(Map.of("k", requests)).processAt(entry, NOW);
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
        BatchResult result = new BatchProcessor(Map.of("k", List.of(acquire("k", spec, 1), release)))
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
        BatchResult result = new BatchProcessor(Map.of("k", List.of(
                acquire("k", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)), 1), acquire("k", log, 1))))
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
        BatchProcessor batch = new BatchProcessor(Map.of("k", List.of(acquire("k", spec, 1), acquire("k", spec, 0))));
        BatchResult result = batch.processAt(entry, NOW);
        assertTrue(!result.verdict(0).granted() && result.failure(1) == null);
        assertEquals(writes, entry.writes);
        assertNull(batch.getBackupProcessor());
    }

    /**
     * One shared instance, two "partition operations" on two threads at once (as submitToKeys runs them):
     * each thread's backup processor holds exactly the states its keys' primaries wrote, not the other
     * thread's keys and not the keys that did not change; asking twice gives the same; the next operation
     * on a thread starts afresh.
     */
    @Test
    void getBackupProcessor_sharedInstance_perPartitionOperation_exactStates() throws Exception {
        LimitSpec spec = LimitSpec.fixedWindow(1, Duration.ofMinutes(1));
        Map<String, List<StepRequest>> requests = new LinkedHashMap<>();
        for (String key : List.of("a1", "a2", "a-full", "b1", "b2", "c-full")) {
            requests.put(key, List.of(acquire(key, spec, 1), acquire(key, spec, 1)));
        }
        BatchProcessor batch = new BatchProcessor(requests);
        Map<String, TestEntry> primaries = new LinkedHashMap<>();
        for (String key : requests.keySet()) {
            TestEntry e = new TestEntry(key, null);
            if (key.endsWith("full")) { // already at the limit: both requests refused, nothing changes
                Verdict v = acquire(key, spec, 1).apply(null, NOW);
                SetStateProcessor.write(e, v.state(), v.ttlMillis());
            }
            primaries.put(key, e);
        }
        CountDownLatch bothProcessed = new CountDownLatch(2);
        CompletableFuture<List<EntryProcessor<String, long[], BatchResult>>> a = partitionOperation(batch, primaries,
                List.of("a1", "a2", "a-full"), bothProcessed);
        CompletableFuture<List<EntryProcessor<String, long[], BatchResult>>> b = partitionOperation(batch, primaries,
                List.of("b1", "b2"), bothProcessed);
        CompletableFuture<List<EntryProcessor<String, long[], BatchResult>>> c = partitionOperation(batch, primaries,
                List.of("c-full"), new CountDownLatch(0));

        assertBackup(a.get(10, TimeUnit.SECONDS), primaries, List.of("a1", "a2"));
        assertBackup(b.get(10, TimeUnit.SECONDS), primaries, List.of("b1", "b2"));
        assertNull(c.get(10, TimeUnit.SECONDS).get(0), "no key changed: no backup");
    }

    /** Runs one partition operation's processes on a new thread, then asks for its backup processor twice. */
    private static CompletableFuture<List<EntryProcessor<String, long[], BatchResult>>> partitionOperation(
            BatchProcessor batch, Map<String, TestEntry> primaries, List<String> keys, CountDownLatch processed) {
        CompletableFuture<List<EntryProcessor<String, long[], BatchResult>>> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                for (String key : keys) {
                    batch.processAt(primaries.get(key), NOW);
                }
                processed.countDown();
                processed.await(10, TimeUnit.SECONDS); // the other operation has processed too
                List<EntryProcessor<String, long[], BatchResult>> twice = new ArrayList<>();
                twice.add(batch.getBackupProcessor());
                twice.add(batch.getBackupProcessor());
                // A later operation on the same thread starts afresh.
                TestEntry unrelated = new TestEntry("z", null);
                assertNull(batch.processAt(unrelated, NOW), "not a key of this batch");
                f.complete(twice);
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        t.start();
        return f;
    }

    private static void assertBackup(List<EntryProcessor<String, long[], BatchResult>> twice,
            Map<String, TestEntry> primaries, List<String> expectedKeys) {
        for (EntryProcessor<String, long[], BatchResult> p : twice) {
            BatchBackupProcessor backup = assertInstanceOf(BatchBackupProcessor.class, p);
            assertEquals(expectedKeys, backup.keys());
            BatchBackupProcessor copy = (BatchBackupProcessor) SERIALIZATION.toObject(SERIALIZATION.toData(backup));
            for (String key : primaries.keySet()) {
                TestEntry replica = new TestEntry(key, null);
                copy.process(replica);
                if (expectedKeys.contains(key)) {
                    assertArrayEquals(primaries.get(key).value, replica.value, key);
                    assertEquals(primaries.get(key).ttlMillis, replica.ttlMillis, key);
                    assertEquals(1, replica.writes);
                } else {
                    assertEquals(0, replica.writes, "a key this backup does not name is left alone: " + key);
                }
            }
        }
    }

    @Test
    void getBackupProcessor_removal_isCopiedAsRemoval() {
        LimitSpec spec = LimitSpec.concurrency(1, Duration.ofMinutes(1));
        TestEntry entry = new TestEntry("k", null);
        Verdict a = acquire("k", spec, 1).apply(null, NOW);
        SetStateProcessor.write(entry, a.state(), a.ttlMillis());
        BatchProcessor batch = new BatchProcessor(Map.of("k", List.of(
                new StepRequest("k", spec, Op.RELEASE, 0, a.token(), Durability.REPLICATED),
                acquire("k", spec, 0))));
        batch.processAt(entry, NOW);
        BatchBackupProcessor backup = (BatchBackupProcessor) batch.getBackupProcessor();
        assertNotNull(backup);
        TestEntry replica = new TestEntry("k", new long[] {1});
        backup.process(replica);
        assertArrayEquals(entry.value, replica.value);
    }

    @Test
    void serialization_roundTrips() {
        LimitSpec spec = LimitSpec.slidingWindow(9, Duration.ofSeconds(6), 3);
        Map<String, List<StepRequest>> requests = new LinkedHashMap<>();
        requests.put("x", List.of(acquire("x", spec, 2), new StepRequest("x", LimitSpec.concurrency(2), Op.RENEW, 0, 42,
                Durability.REPLICATED)));
        requests.put("y", List.of(acquire("y", spec, 1)));
        BatchProcessor back = (BatchProcessor) SERIALIZATION.toObject(
                SERIALIZATION.toData(new BatchProcessor(requests)));
        assertEquals(List.of("x", "y"), List.copyOf(back.keys()));
        assertEquals(new BatchProcessor(requests).toString(), back.toString());
        TestEntry x1 = new TestEntry("x", null);
        TestEntry x2 = new TestEntry("x", null);
        assertEquals(new BatchProcessor(requests).processAt(x1, NOW).toString(), back.processAt(x2, NOW).toString());
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

        BatchBackupProcessor backup = new BatchBackupProcessor(List.of("p", "q"),
                List.of(new BatchProcessor.Written(new long[] {1, 2}, 500), new BatchProcessor.Written(null, 0)));
        BatchBackupProcessor b = (BatchBackupProcessor) SERIALIZATION.toObject(SERIALIZATION.toData(backup));
        assertEquals(List.of("p", "q"), b.keys());
        assertArrayEquals(new long[] {1, 2}, b.state("p"));
        assertEquals(500, b.ttlMillis("p"));
        assertNull(b.state("q"));
        assertSame(null, b.process(new TestEntry("r", null)));
    }
}
