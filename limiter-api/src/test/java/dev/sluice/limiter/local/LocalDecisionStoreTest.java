package dev.sluice.limiter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.spi.Op;
import dev.sluice.limiter.spi.StepRequest;
import java.time.Duration;
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

    @Test
    void refusal_writesNothing() {
        LimitSpec spec = LimitSpec.fixedWindow(1, Duration.ofMinutes(1));
        assertTrue(store.run(acquire("k", spec)).granted());
        long[] before = store.peek("k");
        assertTrue(!store.run(acquire("k", spec)).granted());
        assertTrue(before == store.peek("k"), "a refusal left the stored instance in place");
    }
}
