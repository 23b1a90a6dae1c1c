package dev.sluice.limiter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Reading and resetting one key on a manual clock, for every algorithm family: a read answers what the next
 * request for one permit finds and writes nothing; a reset leaves what a fresh key holds after taking
 * {@code limit - remaining}; overflow cells are read, never reset.
 */
final class InspectResetTest {
    private final ManualClock clock = new ManualClock();
    private final RateLimiters limiters = LocalRateLimiters.create(clock);

    static Stream<LimitSpec> rateSpecs() {
        return Stream.of(
                LimitSpec.fixedWindow(5, Duration.ofMinutes(1)),
                LimitSpec.slidingWindow(5, Duration.ofMinutes(1), 4),
                LimitSpec.slidingLog(5, Duration.ofMinutes(1)),
                LimitSpec.slidingCounter(5, Duration.ofMinutes(1)),
                LimitSpec.tokenBucket(5, 1, Duration.ofSeconds(10)),
                LimitSpec.gcra(1, Duration.ofSeconds(10), 5),
                LimitSpec.allOf(LimitSpec.fixedWindow(5, Duration.ofMinutes(1)),
                        LimitSpec.tokenBucket(8, 1, Duration.ofSeconds(10))));
    }

    @ParameterizedTest
    @MethodSource("rateSpecs")
    void inspect_freshKey_readsFullBudgetWithoutStateOfItsOwn(LimitSpec spec) throws Exception {
        RateLimiter limiter = limiters.limiter("fresh", spec);
        KeyState state = limiter.inspect();
        assertEquals(limiter.key(), state.key());
        assertEquals(spec, state.spec());
        assertEquals(spec.algorithm(), state.algorithm());
        assertEquals(5, state.limit());
        assertEquals(5, state.remaining());
        assertTrue(state.isFull());
        assertEquals(Optional.of(Duration.ZERO), state.retryAfter());
        assertEquals(clock.instant(), state.readAt());
        assertFalse(state.ownState());
        assertFalse(state.onOverflowCell());
        assertNull(storeOf(limiters).peek(limiter.key()), "a read writes nothing");
    }

    @ParameterizedTest
    @MethodSource("rateSpecs")
    void inspect_afterSpending_readsWhatTheNextRequestFinds_andWritesNothing(LimitSpec spec) throws Exception {
        RateLimiter limiter = limiters.limiter("spent", spec);
        assertTrue(limiter.tryAcquire(3).isAcquired());
        long[] before = storeOf(limiters).peek(limiter.key());
        long writes = storeOf(limiters).stateWrites();
        KeyState state = limiter.inspect();
        assertEquals(2, state.remaining());
        assertTrue(state.ownState());
        assertTrue(state.resetAfter().compareTo(Duration.ZERO) > 0, state.toString());
        assertArrayEquals(before, storeOf(limiters).peek(limiter.key()), "a read writes nothing");
        assertEquals(writes, storeOf(limiters).stateWrites(), "a read stores nothing");

        assertTrue(limiter.tryAcquire(2).isAcquired());
        Lease refused = limiter.tryAcquire(1);
        assertFalse(refused.isAcquired());
        KeyState drained = limiter.inspect();
        assertEquals(0, drained.remaining());
        assertEquals(refused.retryAfter(), drained.retryAfter(), "the retry-after for one permit");
        assertEquals(refused.resetAfter(), drained.resetAfter());
    }

    @ParameterizedTest
    @MethodSource("rateSpecs")
    void reset_drainedKey_givesAFullBudgetAndRemovesTheState(LimitSpec spec) throws Exception {
        RateLimiter limiter = limiters.limiter("drained", spec);
        assertTrue(limiter.tryAcquire(5).isAcquired());
        assertFalse(limiter.tryAcquire(1).isAcquired());

        KeyState after = limiter.reset();
        assertEquals(5, after.remaining());
        assertFalse(after.ownState());
        assertNull(storeOf(limiters).peek(limiter.key()), "a reset to full removes the state");
        assertTrue(limiter.tryAcquire(5).isAcquired(), "the whole budget, at the same instant");
        assertFalse(limiter.tryAcquire(1).isAcquired());
    }

    @ParameterizedTest
    @MethodSource("rateSpecs")
    void resetTo_givenRemaining_leavesWhatAFreshKeyHoldsAfterTakingTheRest(LimitSpec spec) {
        RateLimiter limiter = limiters.limiter("partly", spec);
        assertTrue(limiter.tryAcquire(5).isAcquired());
        clock.advance(Duration.ofMillis(1_500));

        KeyState after = limiter.reset(2);
        assertEquals(2, after.remaining());
        assertTrue(after.ownState());
        assertEquals(clock.instant(), after.readAt());
        assertEquals(after, limiter.inspect(), "the reset answers the read of the state it leaves");

        if (!(spec instanceof LimitSpec.AllOf)) { // a composite's components each keep the remaining instead
            RateLimiter fresh = limiters.limiter("fresh", spec);
            assertTrue(fresh.tryAcquire(3).isAcquired());
            assertEquals(fresh.inspect().resetAfter(), after.resetAfter(), "returns as a fresh key's permits do");
        }
        assertTrue(limiter.tryAcquire(2).isAcquired());
        assertFalse(limiter.tryAcquire(1).isAcquired());
    }

    @Test
    void resetTo_composite_leavesEachComponentTheRemaining() {
        LimitSpec spec = LimitSpec.allOf(LimitSpec.fixedWindow(10, Duration.ofMinutes(1)),
                LimitSpec.tokenBucket(4, 1, Duration.ofSeconds(10)));
        RateLimiter limiter = limiters.limiter("composite", spec);
        limiter.reset(1);
        assertEquals(1, limiter.inspect().remaining());
        clock.advance(Duration.ofSeconds(30)); // the bucket refills to its 4; the window would allow 10 - 9 = 1
        assertEquals(1, limiter.inspect().remaining(), "the window component was left 1, not 10 - 3");
    }

    @Test
    void reset_outOfRange_isRefusedAtTheCallSite() {
        RateLimiter limiter = limiters.limiter("range", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)));
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> limiter.reset(-1));
        assertEquals("remaining must be between 0 and 5 (the limit of 'range'), was -1", negative.getMessage());
        IllegalArgumentException above = assertThrows(IllegalArgumentException.class, () -> limiter.reset(6));
        assertEquals("remaining must be between 0 and 5 (the limit of 'range'), was 6", above.getMessage());
    }

    @Test
    void reset_concurrency_onlyToFull_dropsLeases_andKeepsFencingTokensIncreasing() {
        RateLimiter limiter = limiters.limiter("leases", LimitSpec.concurrency(2, Duration.ofMinutes(1)));
        Lease first = limiter.tryAcquire(2);
        assertTrue(first.isAcquired());
        KeyState held = limiter.inspect();
        assertEquals(0, held.remaining());
        assertEquals(Optional.empty(), held.retryAfter(), "leases free when released: no time is known");

        IllegalArgumentException partial = assertThrows(IllegalArgumentException.class, () -> limiter.reset(1));
        assertTrue(partial.getMessage().contains("remaining must be 2") && partial.getMessage().contains("was 1"),
                partial.getMessage());

        assertEquals(2, limiter.reset().remaining());
        Lease second = limiter.tryAcquire(2);
        assertTrue(second.isAcquired(), "the dropped lease no longer counts");
        assertTrue(second.fencingToken().getAsLong() > first.fencingToken().getAsLong(), "tokens keep increasing");
        second.close();
        first.close();
    }

    @Test
    void inspect_keyOnOverflowCell_readsTheCell_andResetLeavesTheCellAlone() throws Exception {
        // A bound of 4 units: 3 for exact states, 1 for the single cell every key past them shares.
        RateLimiters bounded = LocalRateLimiters.create(clock, Capacity.maxKeys(4).withOverflowCells(1));
        PartitionedRateLimiter<String> login = bounded.partitioned("login", LimitSpec.fixedWindow(5,
                Duration.ofMinutes(1)));
        for (String exact : new String[] {"a", "b", "c"}) {
            assertTrue(login.tryAcquire(exact, 1).isAcquired());
        }
        assertTrue(login.tryAcquire("x", 2).isAcquired());
        assertTrue(login.tryAcquire("y", 1).isAcquired());

        KeyState x = login.inspect("x");
        assertTrue(x.onOverflowCell());
        assertFalse(x.ownState());
        assertEquals(2, x.remaining(), "the cell's remaining (5 - 2 - 1), not a fresh budget");

        KeyState afterReset = login.reset("x");
        assertTrue(afterReset.onOverflowCell(), "still on the cell");
        assertEquals(2, afterReset.remaining(), "a reset never hands out the shared cell's budget");
        assertEquals(2, login.inspect("y").remaining());
        assertEquals(2, login.reset("y", 0).remaining(), "nor a partial one");

        assertEquals(4, login.inspect("a").remaining(), "a key with state of its own is read exactly");
        assertFalse(login.inspect("a").onOverflowCell());
        assertEquals(5, login.reset("a").remaining());
    }

    @Test
    void partitioned_resetOfOnePartition_leavesTheOthers() {
        PartitionedRateLimiter<String> login = limiters.partitioned("login", LimitSpec.fixedWindow(3,
                Duration.ofMinutes(1)));
        login.tryAcquire("4711", 3);
        login.tryAcquire("4712", 3);
        assertEquals(0, login.inspect("4711").remaining());
        assertEquals(login.keyOf("4711"), login.inspect("4711").key());
        assertEquals(3, login.reset("4711").remaining());
        assertEquals(0, login.inspect("4712").remaining());
        assertTrue(login.tryAcquire("4711", 3).isAcquired());
    }

    @Test
    void chain_hasNoStateOfItsOwn() {
        RateLimiter chain = RateLimiters.chain(limiters.limiter("one", LimitSpec.fixedWindow(1, Duration.ofMinutes(1))),
                limiters.limiter("two", LimitSpec.fixedWindow(1, Duration.ofMinutes(1))));
        assertThrows(UnsupportedOperationException.class, chain::inspect);
        assertThrows(UnsupportedOperationException.class, chain::reset);
    }

    private static LocalDecisionStore storeOf(RateLimiters limiters) throws ReflectiveOperationException {
        var field = limiters.getClass().getDeclaredField("store");
        field.setAccessible(true);
        return (LocalDecisionStore) field.get(limiters);
    }
}
