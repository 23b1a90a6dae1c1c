package dev.sluice.limiter.algorithm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The packed form Sluice's maps keep states in ({@link StoredState}). */
final class StoredStateTest {
    private static final long NOW = 1_893_456_000_000L; // 2030
    private static final List<LimitSpec> SPECS = List.of(
            LimitSpec.fixedWindow(1_000, Duration.ofHours(1)),
            LimitSpec.slidingWindow(1_000, Duration.ofMinutes(1), 12),
            LimitSpec.slidingLog(50, Duration.ofMinutes(1)),
            LimitSpec.slidingCounter(1_000, Duration.ofMinutes(1)),
            LimitSpec.tokenBucket(1_000, 10, Duration.ofSeconds(1)),
            LimitSpec.gcra(100, Duration.ofSeconds(1), 20),
            LimitSpec.concurrency(5, Duration.ofSeconds(30)),
            LimitSpec.allOf(LimitSpec.tokenBucket(10, 10, Duration.ofSeconds(1)),
                    LimitSpec.fixedWindow(1_000, Duration.ofDays(1))));

    /**
     * Every algorithm's states, after random decisions over random times, unpack to the very same words, and pack
     * shorter (but composites, logs and leases, kept as they are).
     */
    @Test
    void everyAlgorithmsStates_roundTripExactly_andShrink() {
        Random random = new Random(22);
        for (LimitSpec spec : SPECS) {
            long[] state = null;
            long now = NOW;
            for (int i = 0; i < 300; i++) {
                now += random.nextInt(2_000);
                Op op = Op.ACQUIRE;
                Verdict v = Algorithms.step(spec, state, now, op, random.nextInt(3), spec instanceof LimitSpec.Concurrency
                        ? 1 + random.nextInt(1_000_000) : 0);
                if (v.state() == null) {
                    continue;
                }
                state = v.state();
                long[] packed = StoredState.pack(state);
                assertArrayEquals(state, StoredState.unpack(packed), spec.algorithm() + " after " + i);
                // A composite's words hold its components' full headers, which pack no shorter, and a log's runs
                // and the leases' records are byte streams already (beside random nonces): kept as they are.
                boolean kept = spec instanceof LimitSpec.AllOf || spec instanceof LimitSpec.SlidingLog
                        || spec instanceof LimitSpec.Concurrency;
                assertTrue(kept ? packed == state : packed.length < state.length,
                        spec.algorithm() + ": " + packed.length + " of " + state.length);
                if (!kept) {
                    assertEquals(-1, Algorithms.algorithmIdOf(packed), "packed words are no state of any algorithm");
                }
            }
        }
    }

    @Test
    void fiveWordStates_takeThreeLongs() {
        for (LimitSpec spec : List.of(SPECS.get(0), SPECS.get(4), SPECS.get(5))) {
            long[] state = Algorithms.acquire(spec, null, NOW, 1).state();
            assertEquals(5, state.length);
            assertEquals(3, StoredState.pack(state).length, spec.algorithm());
        }
    }

    /** A packed value that reached a step unpacked would be refused, never misread: the header check holds. */
    @Test
    void packedWords_areRefusedByTheStep_unpackedTheyAreDecided() {
        LimitSpec spec = SPECS.get(0);
        long[] packed = StoredState.pack(Algorithms.acquire(spec, null, NOW, 1).state());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Algorithms.acquire(spec, packed, NOW, 1));
        assertTrue(e.getMessage().contains("not Sluice limiter state"), e.getMessage());
        assertEquals(998, Algorithms.acquire(spec, StoredState.unpack(packed), NOW, 1).remaining());
        IllegalStateException other = assertThrows(IllegalStateException.class,
                () -> Algorithms.acquire(SPECS.get(4), StoredState.unpack(packed), NOW, 1));
        assertTrue(other.getMessage().contains("fixed-window"), other.getMessage());
    }

    @Test
    void valuesThatAreNotSluiceState_andOlderPlainStates_areKeptAsTheyAre() {
        long[] foreign = {1, 2, 3, 4, 5};
        assertSame(foreign, StoredState.pack(foreign));
        assertSame(foreign, StoredState.unpack(foreign));
        long[] plain = Algorithms.acquire(SPECS.get(0), null, NOW, 1).state();
        assertSame(plain, StoredState.unpack(plain), "an entry an older Sluice wrote reads as it is");
        assertEquals(null, StoredState.pack(null));
        long[] extreme = plain.clone();
        extreme[4] = Long.MIN_VALUE; // no shorter form: stored as it is
        assertArrayEquals(extreme, StoredState.unpack(StoredState.pack(extreme)));
    }

    @Test
    void malformedPackedValues_failNamingTheProblem() {
        long[] packed = StoredState.pack(Algorithms.acquire(SPECS.get(0), null, NOW, 1).state());
        long[] truncated = {packed[0]};
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> StoredState.unpack(truncated));
        assertTrue(e.getMessage().contains("packed Sluice state"), e.getMessage());
    }
}
