package dev.sluice.limiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.Settlement;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Lease#settle(long)} on the manual clock, for every algorithm family with a limit of 5: a lower cost
 * refunds, a higher one charges, what the budget cannot pay is owed and repaid before any grant, across window turns,
 * and paid by budget produced unused while no one asks.
 */
final class LeaseSettleTest {
    private static final Instant START = Instant.ofEpochMilli(1_700_000_000_000L); // aligned to every window below
    private final ManualClock clock = new ManualClock(START);
    private final RateLimiters limiters = LocalRateLimiters.create(clock);

    @AfterEach
    void close() {
        limiters.close();
    }

    /** Each spec with the time after which a grant made at the start no longer counts. */
    static Stream<Arguments> families() {
        Duration second = Duration.ofSeconds(1);
        return Stream.of(
                Arguments.of(LimitSpec.fixedWindow(5, second), second),
                Arguments.of(LimitSpec.slidingWindow(5, second, 4), second),
                Arguments.of(LimitSpec.slidingLog(5, second), second),
                Arguments.of(LimitSpec.slidingCounter(5, second), Duration.ofSeconds(2)),
                Arguments.of(LimitSpec.tokenBucket(5, 5, second), second),
                Arguments.of(LimitSpec.gcra(5, second, 5), second),
                Arguments.of(LimitSpec.allOf(LimitSpec.fixedWindow(5, second), LimitSpec.slidingLog(8, second)), second));
    }

    private RateLimiter limiter(LimitSpec spec) {
        return limiters.limiter("settle/" + spec.algorithm(), spec);
    }

    private static Settlement settle(Lease lease, long cost) throws Exception {
        return lease.settle(cost).get(5, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @MethodSource("families")
    void lowerCost_refundsTheDifference(LimitSpec spec, Duration forgotten) throws Exception {
        RateLimiter limiter = limiter(spec);
        Lease lease = limiter.tryAcquire(3);
        Settlement s = settle(lease, 1);
        assertEquals(new Settlement(Settlement.Status.SETTLED, 3, 1, 0), s);
        assertEquals(4, limiter.inspect().remaining(), spec.toString());
    }

    @ParameterizedTest
    @MethodSource("families")
    void higherCost_chargesTheExtra(LimitSpec spec, Duration forgotten) throws Exception {
        RateLimiter limiter = limiter(spec);
        assertEquals(new Settlement(Settlement.Status.SETTLED, 1, 3, 0), settle(limiter.tryAcquire(1), 3));
        assertEquals(2, limiter.inspect().remaining(), spec.toString());
        assertEquals(0, limiter.inspect().debt());
    }

    @ParameterizedTest
    @MethodSource("families")
    void costBeyondTheBudget_isOwedAndRepaidBeforeAnyGrant(LimitSpec spec, Duration forgotten) throws Exception {
        RateLimiter limiter = limiter(spec);
        Lease a = limiter.tryAcquire(3);
        assertTrue(limiter.tryAcquire(2).isAcquired());
        Settlement s = settle(a, 5);
        assertEquals(Settlement.Status.SETTLED, s.status());
        assertEquals(2, s.debt(), "the budget was spent: the whole extra is owed");
        KeyState state = limiter.inspect();
        assertEquals(0, state.remaining());
        assertEquals(2, state.debt());
        assertFalse(limiter.tryAcquire(1).isAcquired());
        clock.advance(forgotten);
        Lease after = limiter.tryAcquire(1);
        assertTrue(after.isAcquired(), spec.toString());
        assertEquals(2, after.remaining(), spec + ": the debt of 2 was paid first, then 1 taken");
        assertEquals(0, limiter.inspect().debt());
    }

    @ParameterizedTest
    @MethodSource("families")
    void debtAboveTheLimit_isRepaidAcrossWindowTurns(LimitSpec spec, Duration forgotten) throws Exception {
        RateLimiter limiter = limiter(spec);
        Lease[] leases = new Lease[5];
        for (int i = 0; i < 5; i++) {
            leases[i] = limiter.tryAcquire(1);
        }
        long debt = 0;
        for (Lease lease : leases) {
            debt = settle(lease, 5).debt();
        }
        assertEquals(20, debt, "each lease cost 4 more than it reserved, on a spent budget");
        for (long owed = 15; owed >= 0; owed -= 5) { // each window's budget pays 5, the last one's all of it
            clock.advance(forgotten);
            assertFalse(limiter.tryAcquire(1).isAcquired(), spec + ": owing " + owed + " after paying");
            assertEquals(owed, limiter.inspect().debt(), spec.toString());
        }
        clock.advance(forgotten);
        Lease granted = limiter.tryAcquire(1);
        assertTrue(granted.isAcquired(), spec.toString());
        assertEquals(4, granted.remaining(), spec.toString());
    }

    @ParameterizedTest
    @MethodSource("families")
    void debt_isPaidByBudgetProducedWhileNoOneAsks(LimitSpec spec, Duration forgotten) throws Exception {
        RateLimiter limiter = limiter(spec);
        Lease[] leases = new Lease[5];
        for (int i = 0; i < 5; i++) {
            leases[i] = limiter.tryAcquire(1);
        }
        for (Lease lease : leases) {
            settle(lease, 5);
        }
        clock.advance(forgotten.multipliedBy(2));
        // A window's budget went unused (5 paid), and the budget of the window now holds 5 more to pay with.
        assertEquals(10, limiter.inspect().debt(), spec.toString());
        clock.advance(forgotten.multipliedBy(10));
        KeyState idle = limiter.inspect();
        assertEquals(0, idle.debt());
        assertEquals(5, idle.remaining(), "every permit owed was produced unused: a full budget");
    }

    @Test
    void reset_clearsTheDebt() throws Exception {
        RateLimiter limiter = limiter(LimitSpec.fixedWindow(5, Duration.ofMinutes(1)));
        Lease a = limiter.tryAcquire(1);
        limiter.tryAcquire(4);
        assertEquals(4, settle(a, 5).debt());
        limiter.reset();
        assertEquals(0, limiter.inspect().debt());
        assertTrue(limiter.tryAcquire(5).isAcquired());
    }

    @Test
    void settleTwice_throws_andRefundAfterSettleGivesNothing() throws Exception {
        RateLimiter limiter = limiter(LimitSpec.fixedWindow(5, Duration.ofMinutes(1)));
        Lease lease = limiter.tryAcquire(2);
        settle(lease, 2);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> lease.settle(1));
        assertTrue(e.getMessage().contains("settled or refunded once"), e.getMessage());
        assertFalse(lease.refund().get(5, TimeUnit.SECONDS));
        Lease refunded = limiter.tryAcquire(1);
        refunded.refund().get(5, TimeUnit.SECONDS);
        assertThrows(IllegalStateException.class, () -> refunded.settle(1));
    }

    @Test
    void badCost_isRefusedNamingTheValueAndTheBound() {
        RateLimiter limiter = limiter(LimitSpec.fixedWindow(5, Duration.ofMinutes(1)));
        Lease lease = limiter.tryAcquire(2);
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> lease.settle(-1));
        assertEquals("cost must be between 0 and 1000000000 (settling a lease of 'settle/fixed-window'), was -1",
                negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> lease.settle(LimitSpec.MAX_LIMIT + 1));
        assertThrows(IllegalArgumentException.class, () -> Lease.granted(1, 5, Duration.ZERO).settle(-1));
    }

    /** A call that cost more than a whole window allows: the budget pays what it holds, the key owes the rest. */
    @Test
    void costAboveTheLimit_chargedWhole_theRestOwed() throws Exception {
        RateLimiter limiter = limiter(LimitSpec.fixedWindow(5, Duration.ofMinutes(1)));
        Lease lease = limiter.tryAcquire(2);
        Settlement settled = settle(lease, 12);
        assertEquals(Settlement.Status.SETTLED, settled.status());
        assertEquals(7, settled.debt(), "12 less the 2 reserved and the 3 the window still held");
        assertEquals(7, limiter.inspect().debt());
        assertFalse(limiter.tryAcquire(1).isAcquired(), "nothing is granted while the key owes");
    }

    @Test
    void leasesHoldingNothing_settleNothing() throws Exception {
        RateLimiter limiter = limiter(LimitSpec.fixedWindow(2, Duration.ofMinutes(1)));
        limiter.tryAcquire(2);
        Lease refused = limiter.tryAcquire(1);
        assertEquals(Settlement.Status.NOTHING_HELD, settle(refused, 1).status());
        assertEquals(Settlement.Status.NOTHING_HELD, settle(refused, 1).status(), "as often as asked");
        assertEquals(Settlement.Status.NOTHING_HELD, settle(Lease.degraded(true, 2), 2).status());
        assertEquals(Settlement.Status.NOTHING_HELD, settle(Lease.granted(1, 2, Duration.ZERO), 2).status());
    }

    @Test
    void concurrencyLease_isNotSettled() throws Exception {
        RateLimiter limiter = limiter(LimitSpec.concurrency(2, Duration.ofMinutes(1)));
        Lease lease = limiter.tryAcquire(1);
        assertEquals(Settlement.Status.UNSUPPORTED, settle(lease, 2).status());
        assertEquals(1, limiter.inspect().remaining(), "still held until closed");
        lease.close();
    }

    @Test
    void chain_settlesEveryLink() throws Exception {
        RateLimiter perClient = limiter(LimitSpec.fixedWindow(5, Duration.ofMinutes(1)));
        RateLimiter global = limiters.limiter("settle/global", LimitSpec.tokenBucket(10, 1, Duration.ofMinutes(1)));
        RateLimiter chain = RateLimiters.chain(perClient, global);
        Settlement s = settle(chain.tryAcquire(2), 4);
        assertEquals(Settlement.Status.SETTLED, s.status());
        assertEquals(1, perClient.inspect().remaining());
        assertEquals(6, global.inspect().remaining());
    }
}
