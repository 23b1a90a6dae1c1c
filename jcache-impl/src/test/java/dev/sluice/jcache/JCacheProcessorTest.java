package dev.sluice.jcache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.RequestCodec;
import dev.sluice.limiter.store.StepOutcomes;
import dev.sluice.limiter.store.StepRequest;
import java.util.List;
import dev.sluice.limiter.algorithm.Verdict;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.stream.Stream;
import javax.cache.processor.MutableEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The wire forms: the spec codec and the processor's Java serialization, and the processor's writes. */
final class JCacheProcessorTest {

    static Stream<LimitSpec> specs() {
        return Stream.of(
                LimitSpec.fixedWindow(7, Duration.ofSeconds(3)),
                LimitSpec.slidingWindow(7, Duration.ofSeconds(6), 3),
                LimitSpec.slidingLog(7, Duration.ofSeconds(3)),
                LimitSpec.slidingCounter(7, Duration.ofSeconds(3)),
                LimitSpec.tokenBucket(7, 2, Duration.ofSeconds(3)),
                LimitSpec.gcra(2, Duration.ofSeconds(3), 7),
                LimitSpec.concurrency(7, Duration.ofSeconds(3)));
    }

    @ParameterizedTest
    @MethodSource("specs")
    void specCodec_roundTrip_givesAnEqualSpec(LimitSpec spec) {
        long[] w = RequestCodec.encodeSpec(spec);
        assertEquals(spec, RequestCodec.decodeSpec(w[0], w[1], w[2], w[3]));
    }

    @Test
    void specCodec_unknownAlgorithm_throws() {
        assertThrows(IllegalArgumentException.class, () -> RequestCodec.decodeSpec(99, 1, 1, 1));
    }

    /** A processor that crossed Java serialization decides exactly like the one that did not. */
    @ParameterizedTest
    @MethodSource("specs")
    void processor_afterJavaSerialization_decidesTheSame(LimitSpec spec) throws Exception {
        ManualClock clock = new ManualClock();
        ProcessorClocks.register("processor-test", clock);
        try {
            StepRequest request = new StepRequest("k", spec, Op.ACQUIRE, 3, 0, Durability.REPLICATED);
            CacheStepProcessor local = new CacheStepProcessor(List.of(request), "processor-test");
            CacheStepProcessor copy = roundTrip(local);
            Entry a = new Entry(null);
            Entry b = new Entry(null);
            StepOutcomes first = local.process(a);
            StepOutcomes second = roundTrip(copy.process(b));
            if (!(spec instanceof LimitSpec.Concurrency)) { // lease ids are random
                assertArrayEquals(first.verdict(0).toWords(), second.verdict(0).toWords());
            }
            assertArrayEquals(a.value, b.value);
            assertTrue(second.verdict(0).granted());
        } finally {
            ProcessorClocks.unregister("processor-test");
        }
    }

    @Test
    void processor_refusal_writesNothing() {
        LimitSpec spec = LimitSpec.fixedWindow(1, Duration.ofMinutes(1));
        StepRequest request = new StepRequest("k", spec, Op.ACQUIRE, 1, 0, Durability.REPLICATED);
        Entry entry = new Entry(null);
        new CacheStepProcessor(List.of(request), null).process(entry);
        long[] stored = entry.value;
        entry.writes = 0;
        Verdict refused = new CacheStepProcessor(List.of(request), null).process(entry).verdict(0);
        assertEquals(false, refused.granted());
        assertEquals(0, entry.writes);
        assertTrue(stored == entry.value);
    }

    @Test
    void processor_unregisteredClock_throwsNamingIt() {
        StepRequest request = new StepRequest("k", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)), Op.ACQUIRE, 1, 0,
                Durability.REPLICATED);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new CacheStepProcessor(List.of(request), "nowhere").process(new Entry(null)));
        assertTrue(e.getMessage().contains("'nowhere'"), e.getMessage());
    }

    /** One invoke runs a batch in order; a request whose step fails answers alone, and the others still run. */
    @Test
    void processor_batch_decidesInOrder_andAFailureAnswersAlone() throws Exception {
        LimitSpec spec = LimitSpec.fixedWindow(2, Duration.ofMinutes(1));
        StepRequest take = new StepRequest("k", spec, Op.ACQUIRE, 1, 0, Durability.REPLICATED);
        StepRequest foreign = new StepRequest("k", LimitSpec.slidingLog(5, Duration.ofMinutes(1)), Op.ACQUIRE, 1, 0,
                Durability.REPLICATED);
        Entry entry = new Entry(null);
        StepOutcomes outcomes = roundTrip(new CacheStepProcessor(List.of(take, foreign, take, take), null)
                .process(entry));
        assertEquals(List.of(true, false, true, false), List.of(outcomes.verdict(0).granted(),
                outcomes.verdict(1) != null, outcomes.verdict(2).granted(), outcomes.verdict(3).granted()));
        assertEquals(IllegalStateException.class, outcomes.failure(1).getClass(), "the step's own error, as thrown");
        assertEquals(1, entry.writes, "the batch's final state written once");
    }

    @Test
    void clocks_anotherClockUnderATakenName_throws() {
        ManualClock clock = new ManualClock();
        ProcessorClocks.register("taken", clock);
        try {
            ProcessorClocks.register("taken", clock); // the same clock again is allowed
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> ProcessorClocks.register("taken", new ManualClock()));
            assertTrue(e.getMessage().contains("'taken'"), e.getMessage());
        } finally {
            ProcessorClocks.unregister("taken");
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T roundTrip(T p) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(p);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return (T) in.readObject();
        }
    }

    private static final class Entry implements MutableEntry<String, long[]> {
        long[] value;
        int writes;

        Entry(long[] value) {
            this.value = value;
        }

        @Override public boolean exists() { return value != null; }
        @Override public void remove() { value = null; writes++; }
        @Override public void setValue(long[] v) { value = v; writes++; }
        @Override public String getKey() { return "k"; }
        @Override public long[] getValue() { return value; }
        @Override public <T> T unwrap(Class<T> clazz) { throw new IllegalArgumentException(); }
    }
}
