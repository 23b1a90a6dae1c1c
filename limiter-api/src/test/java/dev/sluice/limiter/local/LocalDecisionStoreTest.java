package dev.sluice.limiter.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.store.StepRequest;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

final class LocalDecisionStoreTest {
    private final ManualClock clock = new ManualClock();
    private final LocalDecisionStore store = new LocalDecisionStore(clock);

    private static StepRequest acquire(String key, LimitSpec spec) {
        return new StepRequest(key, spec, Op.ACQUIRE, 1, 0, Durability.REPLICATED);
    }

    @Test
    void sweep_removesOnlyStateWhoseTimeToLiveHasPassed() {
        LimitSpec shortWindow = LimitSpec.fixedWindow(5, Duration.ofSeconds(1));
        LimitSpec longWindow = LimitSpec.fixedWindow(5, Duration.ofHours(1));
        for (int i = 0; i < 100; i++) {
            store.run(acquire("short-" + i, shortWindow));
        }
        store.run(acquire("long", longWindow));
        assertEquals(101, store.size());
        clock.advance(Duration.ofSeconds(1));
        store.sweep();
        assertEquals(1, store.size(), "idle short-window state vanished, the live one stayed");
        assertEquals(3, store.run(acquire("long", longWindow)).remaining());
    }

    /** Sweeping happens by itself as writes go on: a flood of one-off keys does not accumulate. */
    @Test
    void writes_sweepExpiredStateWithoutASweeperThread() {
        LimitSpec spec = LimitSpec.slidingLog(1, Duration.ofMillis(10));
        for (int i = 0; i < 50 * LocalDecisionStore.SWEEP_EVERY; i++) {
            store.run(acquire("key-" + i, spec));
            clock.advance(Duration.ofMillis(1));
        }
        assertTrue(store.size() <= LocalDecisionStore.SWEEP_EVERY + 10, "held " + store.size());
    }

    /**
     * Regression: a sweep removed state that had expired by the clock's time, then the clock stepped back; the key
     * read as absent at a time when its state was still live, and a concurrency lease's fencing token went down.
     * After a sweep at {@code S} the store decides as if its time were at least {@code S}: as a step at {@code S}
     * would have found the state stale, so does every later one.
     */
    @Test
    void sweep_thenClockStepsBack_timeNeverRunsBackwardsForSweptKeys() {
        LimitSpec spec = LimitSpec.concurrency(1, Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(10));
        long first = store.run(acquire("lease", spec)).token();
        clock.advance(Duration.ofSeconds(10));
        store.sweep();
        assertEquals(0, store.size(), "the expired lease was swept");
        clock.set(clock.instant().minus(Duration.ofSeconds(15)));
        long next = store.run(acquire("lease", spec)).token();
        assertTrue(next > first, "fencing tokens increase across a sweep and a clock step back: " + first + " then " + next);
    }

    /** The same rule for a window: a window swept at 61 s is not reopened when the clock steps back to 30 s. */
    @Test
    void sweep_thenClockStepsBack_sweptWindowIsNotGrantedTwice() {
        ManualClock epoch = new ManualClock(Instant.EPOCH);
        LocalDecisionStore local = new LocalDecisionStore(epoch);
        LimitSpec window = LimitSpec.fixedWindow(1, Duration.ofMinutes(1));
        assertTrue(local.run(acquire("window", window)).granted());
        epoch.set(Instant.ofEpochMilli(61_000));
        local.sweep();
        epoch.set(Instant.ofEpochMilli(30_000));
        assertTrue(local.run(acquire("window", window)).granted(), "decided as at 61 s: the window of 60 s");
        epoch.set(Instant.ofEpochMilli(61_000));
        assertFalse(local.run(acquire("window", window)).granted(), "the window of 60 s, once the clock caught up");
    }

    @Test
    void refusal_writesNothing() {
        LimitSpec spec = LimitSpec.fixedWindow(1, Duration.ofMinutes(1));
        assertTrue(store.run(acquire("k", spec)).granted());
        long[] before = store.peek("k");
        long writes = store.stateWrites();
        assertTrue(!store.run(acquire("k", spec)).granted());
        assertArrayEquals(before, store.peek("k"));
        assertEquals(writes, store.stateWrites(), "a refusal stored nothing");
    }
}
