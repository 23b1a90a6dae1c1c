package dev.sluice.limiter.algorithm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.IllegalParameterException;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.algorithm.SessionWindowStep.SessionWindow;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An algorithm added in one place ({@link SessionWindowStep} and its line in the test resources' services file) is
 * seen by every consumer: the catalogue and the names, the spec validation, the codec, the step dispatch, the state
 * merge and a limiter. (The explorer's lanes: explorer's {@code NewAlgorithmLaneTest}.)
 */
final class NewAlgorithmTest {
    private static final long NOW = 1_700_000_000_123L;
    private static final SessionWindow SPEC = new SessionWindow(3, 1_000);

    @Test
    void catalogue_listsIt_byNameIdAndSpecType() {
        AlgorithmDescription d = AlgorithmDescription.named(SessionWindowStep.NAME);
        assertTrue(AlgorithmDescription.all().contains(d));
        assertEquals(SessionWindowStep.ID, d.id());
        assertEquals(d, AlgorithmDescription.of(SPEC));
        assertTrue(LimitSpec.ALGORITHMS.contains(SessionWindowStep.NAME), LimitSpec.ALGORITHMS.toString());
        assertEquals(SessionWindowStep.NAME, SPEC.algorithm());
        assertTrue(AlgorithmDescription.markdownTable().contains("| `session-window` | `sessionWindow(permitLimit,"
                + " window)` |"));
    }

    @Test
    void validation_readsItsBounds() {
        IllegalParameterException e = assertThrows(IllegalParameterException.class, () -> new SessionWindow(1_001, 10));
        assertEquals("permitLimit must be between 1 and 1000, was 1001", e.getMessage());
        AlgorithmDescription d = AlgorithmDescription.named(SessionWindowStep.NAME);
        assertEquals(new SessionWindow(5, 60_000), d.spec(Map.of("permitLimit", 5)), "the window's default");
        IllegalParameterException window = assertThrows(IllegalParameterException.class,
                () -> d.spec(Map.of("permitLimit", 5, "window", Duration.ZERO)));
        assertEquals("window must be between PT0.001S and PT8784H, was PT0S", window.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SPEC.checkPermits(4, null));
        // A composite takes it as a rate component.
        assertEquals(3, LimitSpec.allOf(SPEC, LimitSpec.fixedWindow(10, Duration.ofSeconds(1))).limit());
    }

    @Test
    void codec_roundTrips() {
        long[] words = RequestCodec.encodeSpec(SPEC);
        assertEquals(SessionWindowStep.ID, words[0]);
        assertEquals(SPEC, RequestCodec.decodeSpec(words, 0));
        LimitSpec composite = LimitSpec.allOf(LimitSpec.gcra(5, Duration.ofSeconds(1), 5), SPEC);
        assertEquals(composite, RequestCodec.decodeSpec(RequestCodec.encodeSpec(composite), 0));
        assertThrows(IllegalParameterException.class, () -> RequestCodec.decodeSpec(SessionWindowStep.ID, 0, 1_000, 0),
                "decoding validates it");
    }

    @Test
    void dispatch_runsItsStep_andKnowsItsState() {
        long[] state = null;
        for (int i = 0; i < 3; i++) {
            Verdict v = Algorithms.acquire(SPEC, state, NOW + i, 1);
            assertTrue(v.granted(), "grant " + i);
            state = v.state();
        }
        assertEquals(SessionWindowStep.ID, Algorithms.algorithmIdOf(state));
        Verdict refused = Algorithms.acquire(SPEC, state, NOW + 10, 1);
        assertFalse(refused.granted());
        assertEquals(NOW + 1_000 - (NOW + 10), refused.retryAfterMillis(), "the window counts from the first request");
        assertTrue(Algorithms.acquire(SPEC, state, NOW + 1_000, 1).granted(), "a new window after the old one ends");

        long[] refunded = Algorithms.step(SPEC, state, NOW + 20, Op.REFUND, 1, NOW + 1).state();
        assertTrue(Algorithms.acquire(SPEC, refunded, NOW + 21, 1).granted(), "a refund gives the permit back");

        long[] finalState = state;
        IllegalStateException foreign = assertThrows(IllegalStateException.class,
                () -> Algorithms.acquire(LimitSpec.fixedWindow(3, Duration.ofSeconds(1)), finalState, NOW + 30, 1));
        assertTrue(foreign.getMessage().contains("holds session-window state"), foreign.getMessage());

        long[] oneSide = Algorithms.acquire(SPEC, null, NOW, 1).state();
        long[] otherSide = Algorithms.acquire(SPEC, Algorithms.acquire(SPEC, null, NOW, 1).state(), NOW + 1, 1).state();
        assertEquals(1, Algorithms.acquire(SPEC, StateMerge.merge(oneSide, otherSide), NOW + 2, 0).remaining(),
                "a merge keeps the consumption of the side that took more, by the algorithm's own rule");
        assertEquals(1, Algorithms.acquire(SPEC, StateMerge.merge(otherSide, oneSide), NOW + 2, 0).remaining());

        LimitSpec.AllOf composite = LimitSpec.allOf(LimitSpec.fixedWindow(10, Duration.ofSeconds(10)), SPEC);
        long[] both = null;
        for (int i = 0; i < 3; i++) {
            both = Algorithms.acquire(composite, both, NOW + i, 1).state();
        }
        assertFalse(Algorithms.acquire(composite, both, NOW + 5, 1).granted(), "its component refuses");
    }

    @Test
    void limiter_inProcess_enforcesIt() {
        try (RateLimiters limiters = LocalRateLimiters.create()) {
            PartitionedRateLimiter<String> perClient = limiters.partitioned("sessions", SPEC);
            for (int i = 0; i < 3; i++) {
                assertTrue(perClient.tryAcquire("alice", 1).isAcquired(), "grant " + i);
            }
            assertFalse(perClient.tryAcquire("alice", 1).isAcquired());
            assertTrue(perClient.tryAcquire("bob", 1).isAcquired());
        }
    }
}
