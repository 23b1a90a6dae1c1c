package dev.sluice.limiter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.StoreStatistics;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.StepRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The flood that would buy a fresh budget, tried as an attacker would on the default in-process store: a spent
 * victim and a hot key under exact limits, then floods of ten times the bound, untargeted and aimed at the victim's
 * segment. No decision may be looser because of the flood, and memory stays bounded.
 */
final class LocalFloodAttackTest {
    private static final int BOUND = 10_000;
    /** What exact states may fill of a bound of 64 units; the rest holds cells. */
    private static final int EXACT_OF_64 = (int) Capacity.exactUnits(Capacity.Policy.SHARE_OVERFLOW_CELLS, 64);
    private final ManualClock clock = new ManualClock();

    @Test
    void untargetedFlood_victimGetsNothingMore_hotKeyExactEveryWindow_memoryBounded() throws Exception {
        attack(i -> "flood-" + i);
    }

    /** Every flood key lands in the victim's segment: a bound kept per segment would fill there first. */
    @Test
    void floodAimedAtTheVictimsSegment_changesNothing() throws Exception {
        RateLimiters probe = LocalRateLimiters.create(clock, Capacity.maxKeys(BOUND));
        String victimKey = "sluice/login/" + "victim";
        int segments = LocalDecisionStore.segmentCount(BOUND);
        int target = segmentIndex(victimKey, segments);
        probe.close();
        List<String> aimed = new ArrayList<>();
        for (long n = 0; aimed.size() < 10 * BOUND; n++) {
            String id = "aimed-" + n;
            if (segmentIndex("sluice/flood/" + id, segments) == target) {
                aimed.add(id);
            }
        }
        attack(aimed::get);
    }

    private void attack(java.util.function.IntFunction<String> floodKey) throws Exception {
        RateLimiters limiters = LocalRateLimiters.create(clock, Capacity.maxKeys(BOUND));
        LocalDecisionStore store = storeOf(limiters);
        // ALLOW everywhere: a capacity refusal must be a deny all the same.
        LimiterOptions open = LimiterOptions.builder().failureMode(FailureMode.ALLOW).build();
        PartitionedRateLimiter<String> login = limiters.partitioned("login", LimitSpec.slidingLog(10, Duration.ofHours(1)), open);
        PartitionedRateLimiter<String> flood = limiters.partitioned("flood", LimitSpec.fixedWindow(10, Duration.ofHours(1)), open);
        RateLimiter hot = limiters.limiter("hot", LimitSpec.fixedWindow(200, Duration.ofSeconds(10)), open);
        for (int i = 0; i < 10; i++) {
            assertTrue(login.tryAcquire("victim", 1).isAcquired());
        }
        assertFalse(login.tryAcquire("victim", 1).isAcquired(), "spent");

        int victimGrants = 0;
        long maxUnits = 0;
        for (int window = 0; window < 10; window++) {
            int hotGrants = 0;
            for (int i = 0; i < BOUND; i++) {
                Lease lease = flood.tryAcquire(floodKey.apply(window * BOUND + i), 1);
                assertFalse(lease.isDegraded() && lease.isAcquired(), "nothing granted without a decision");
                if (i % 25 == 0) {
                    hotGrants += hot.tryAcquire(1).isAcquired() ? 1 : 0;
                }
                if (i % 10 == 0) {
                    victimGrants += login.tryAcquire("victim", 1).isAcquired() ? 1 : 0;
                }
            }
            maxUnits = Math.max(maxUnits, store.unitsHeld());
            assertEquals(200, hotGrants, "the hot key granted exactly its limit in window " + window);
            clock.advance(Duration.ofSeconds(10)); // the hot key's next window; the victim's hour still runs
        }
        assertEquals(0, victimGrants, "the spent victim was granted nothing more during the flood");
        assertTrue(maxUnits <= BOUND, "held " + maxUnits + " key units, bound " + BOUND);
        StoreStatistics stats = limiters.storeStatistics();
        assertEquals(0, stats.evictions(), "nothing that limits was dropped");
        assertTrue(stats.overflowDecisions() > 0, "keys beyond the bound were decided on cells: " + stats);
        assertTrue(stats.overflowCells() <= Capacity.maxKeys(BOUND).overflowCells(BOUND) * 2L,
                "cells are a fixed table per spec: " + stats);
        limiters.close();
    }

    /**
     * The targets of the default table: after a flood of three times the bound whose keys each take one permit of a
     * limit of ten, at least half of new clients' first requests are granted. Cells count in the bound (a quarter
     * of it, a quarter of the bound in cells), so the flood's overflow averages nine keys a cell.
     */
    @Test
    void afterAFloodOfThreeTimesTheBound_newClientsAreStillMostlyGranted() {
        RateLimiters limiters = LocalRateLimiters.create(clock, Capacity.maxKeys(BOUND));
        // A decision of a starved machine's collector can outlast the default second; placement is the point here.
        LimiterOptions patient = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(60)).build();
        PartitionedRateLimiter<String> api = limiters.partitioned("api", LimitSpec.fixedWindow(10, Duration.ofMinutes(1)),
                patient);
        for (int i = 0; i < 3 * BOUND; i++) {
            api.tryAcquire("flood-" + i, 1);
        }
        int granted = 0;
        int clients = 2_000;
        for (int i = 0; i < clients; i++) {
            granted += api.tryAcquire("client-" + i, 1).isAcquired() ? 1 : 0;
        }
        assertTrue(granted >= clients / 2, granted + " of " + clients + " new clients granted");
        limiters.close();
    }

    /** A concurrency key cannot share a cell's leases: beyond the bound it is denied, degraded, under ALLOW too. */
    @Test
    void newConcurrencyKeyAtTheBound_isADegradedDeny() {
        RateLimiters limiters = LocalRateLimiters.create(clock, Capacity.maxKeys(100));
        PartitionedRateLimiter<String> leases = limiters.partitioned("jobs", LimitSpec.concurrency(1, Duration.ofMinutes(5)),
                LimiterOptions.builder().failureMode(FailureMode.ALLOW).build());
        for (int i = 0; i < Capacity.exactUnits(Capacity.Policy.SHARE_OVERFLOW_CELLS, 100); i++) {
            assertTrue(leases.tryAcquire("k" + i, 1).isAcquired());
        }
        Lease beyond = leases.tryAcquire("new", 1);
        assertTrue(beyond.isDegraded() && !beyond.isAcquired(), beyond.toString());
        assertEquals(1, limiters.storeStatistics().capacityRefusals());
        limiters.close();
    }

    /** A state is weighed by its size: one large log takes the room of many small keys. */
    @Test
    void largeStatesAreWeighedByTheirSize() throws Exception {
        RateLimiters limiters = LocalRateLimiters.create(clock, Capacity.maxKeys(2_100).refuseNewKeys());
        LocalDecisionStore store = storeOf(limiters);
        RateLimiter log = limiters.limiter("big", LimitSpec.slidingLog(100_000, Duration.ofHours(1)));
        for (int i = 0; i < 50_000; i++) { // spread: a log keeps one run per distinct millisecond
            assertTrue(log.tryAcquire(1).isAcquired());
            clock.advance(Duration.ofMillis(20));
        }
        long units = store.unitsHeld();
        assertTrue(units > 100, "a log of 50,000 grants weighs as more than 100 small keys: " + units);
        PartitionedRateLimiter<String> small = limiters.partitioned("small", LimitSpec.fixedWindow(1, Duration.ofHours(1)));
        int admitted = 0;
        while (admitted < 2_100 && !small.tryAcquire("k" + admitted, 1).isDegraded()) {
            admitted++;
        }
        assertEquals(2_100 - units, admitted, "the small keys took exactly the room the log left");
        limiters.close();
    }

    /**
     * A grant decided on a cell keeps its permits: the refund gives nothing back and says so. A cell's refund
     * memory would be shared with every key on it, and keeping the permit only ever refuses more.
     */
    @Test
    void refundOfACellGrant_givesNothingBack() {
        RateLimiters limiters = LocalRateLimiters.create(clock, Capacity.maxKeys(64).withOverflowCells(1));
        PartitionedRateLimiter<String> p = limiters.partitioned("p", LimitSpec.fixedWindow(3, Duration.ofHours(1)));
        for (int i = 0; i < EXACT_OF_64; i++) {
            assertTrue(p.tryAcquire("k" + i, 1).isAcquired());
        }
        Lease a = p.tryAcquire("a", 1);
        Lease b = p.tryAcquire("b", 1);
        Lease c = p.tryAcquire("c", 1);
        assertTrue(a.isAcquired() && b.isAcquired() && c.isAcquired());
        assertFalse(p.tryAcquire("d", 1).isAcquired(), "the one cell's 3 are spent by a, b and c");
        assertFalse(b.refund().join(), "nothing was given back");
        assertFalse(p.tryAcquire("e", 1).isAcquired(), "the cell kept b's permit");
        limiters.close();
    }

    /**
     * A refund run again (as a store may re-run one) for an exact grant whose state has gone never reaches a cell:
     * the cell never held that permit, and the refund would hand it one.
     */
    @Test
    void refundOfAnExactGrant_neverReachesACell() throws Exception {
        RateLimiters limiters = LocalRateLimiters.create(clock, Capacity.maxKeys(64).withOverflowCells(1));
        LocalDecisionStore store = storeOf(limiters);
        LimitSpec bucket = LimitSpec.tokenBucket(1, 1, Duration.ofHours(1));
        String key = "sluice/p/exact";
        Verdict grant = store.run(new StepRequest(key, bucket, Op.ACQUIRE, 1, 0, Durability.REPLICATED));
        assertTrue(grant.granted());
        StepRequest refund = new StepRequest(key, bucket, Op.REFUND, 1, grant.token(), Durability.REPLICATED);
        assertTrue(store.run(refund).granted(), "given back: the bucket is full, so its entry goes");
        PartitionedRateLimiter<String> fill = limiters.partitioned("fill", LimitSpec.fixedWindow(1, Duration.ofHours(1)));
        for (int i = 0; i < EXACT_OF_64; i++) {
            assertTrue(fill.tryAcquire("k" + i, 1).isAcquired());
        }
        PartitionedRateLimiter<String> p = limiters.partitioned("p", bucket);
        assertTrue(p.tryAcquire("on-cell", 1).isAcquired(), "the cell's one token");
        store.run(refund); // the same refund again, the key without state
        assertFalse(p.tryAcquire("also-on-cell", 1).isAcquired(), "the cell was not handed a token");
        limiters.close();
    }

    /**
     * A limit changed live for a key on a cell (1 hour to 2 hours): the new spec applies to the same cell's
     * consumption, as it would to the key's own state, so the key gets no fresh budget from the change.
     */
    @Test
    void liveChangeOfAKeyOnACell_neverHandsOutAFreshBudget() {
        RateLimiters limiters = LocalRateLimiters.create(clock, Capacity.maxKeys(64).withOverflowCells(1));
        PartitionedRateLimiter<String> fill = limiters.partitioned("fill", LimitSpec.fixedWindow(1, Duration.ofHours(1)));
        for (int i = 0; i < EXACT_OF_64; i++) {
            assertTrue(fill.tryAcquire("k" + i, 1).isAcquired());
        }
        PartitionedRateLimiter<String> before = limiters.partitioned("login", LimitSpec.slidingLog(2, Duration.ofHours(1)));
        assertTrue(before.tryAcquire("x", 1).isAcquired());
        assertTrue(before.tryAcquire("x", 1).isAcquired());
        assertFalse(before.tryAcquire("x", 1).isAcquired());
        PartitionedRateLimiter<String> after = limiters.partitioned("login", LimitSpec.slidingLog(2, Duration.ofHours(2)));
        assertFalse(after.tryAcquire("x", 1).isAcquired(), "the new spec sees the cell's 2");
        assertTrue(limiters.storeStatistics().overflowDecisions() >= 4, limiters.storeStatistics().toString());
        limiters.close();
    }

    /** A key decided on its cell stays there while the cell is live, even once the store has room again. */
    @Test
    void keyOnALiveCell_staysThereWhenRoomFrees() {
        RateLimiters limiters = LocalRateLimiters.create(clock, Capacity.maxKeys(64).withOverflowCells(1));
        PartitionedRateLimiter<String> full = limiters.partitioned("full", LimitSpec.fixedWindow(1, Duration.ofSeconds(10)));
        PartitionedRateLimiter<String> p = limiters.partitioned("p", LimitSpec.fixedWindow(2, Duration.ofHours(1)));
        for (int i = 0; i < EXACT_OF_64; i++) {
            assertTrue(full.tryAcquire("k" + i, 1).isAcquired());
        }
        assertTrue(p.tryAcquire("x", 1).isAcquired());
        assertTrue(p.tryAcquire("x", 1).isAcquired());
        clock.advance(Duration.ofSeconds(10)); // the 64 keys' windows end: room, but x's cell still holds its 2
        assertFalse(p.tryAcquire("x", 1).isAcquired(), "x's own history refuses, and so does its cell");
        limiters.close();
    }

    /**
     * Two plain limiters under one prefix at the bound, {@code export} at 5 a day and {@code ping} at 1,000 a
     * second: ping's short windows never wipe export's count, because a limiter's cells are its own.
     */
    @Test
    void plainLimitersUnderOnePrefix_neverShareACell() {
        RateLimiters limiters = LocalRateLimiters.create(clock, Capacity.maxKeys(64).withOverflowCells(1));
        PartitionedRateLimiter<String> fill = limiters.partitioned("fill", LimitSpec.fixedWindow(1, Duration.ofDays(3)));
        for (int i = 0; i < EXACT_OF_64; i++) {
            assertTrue(fill.tryAcquire("k" + i, 1).isAcquired());
        }
        RateLimiter export = limiters.limiter("export", LimitSpec.fixedWindow(5, Duration.ofDays(1)));
        RateLimiter ping = limiters.limiter("ping-675", LimitSpec.fixedWindow(1000, Duration.ofSeconds(1)));
        int exported = 0;
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 10; i++) {
                exported += export.tryAcquire(1).isAcquired() ? 1 : 0;
            }
            assertTrue(ping.tryAcquire(1).isAcquired());
            clock.advance(Duration.ofMillis(1_100));
        }
        assertEquals(5, exported, "export's limit of 5 a day");
        assertTrue(limiters.storeStatistics().overflowDecisions() > 0, "both decided on cells");
        limiters.close();
    }

    /** Exact states and cells together stay within the bound, however many policies flood at once. */
    @Test
    void manyPoliciesFlooding_unitsStayWithinTheBound() throws Exception {
        RateLimiters limiters = LocalRateLimiters.create(clock, Capacity.maxKeys(1_000));
        LocalDecisionStore store = storeOf(limiters);
        List<PartitionedRateLimiter<String>> policies = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            policies.add(limiters.partitioned("flood-" + i, LimitSpec.tokenBucket(10, 1, Duration.ofHours(1))));
        }
        long most = 0;
        for (int i = 0; i < 5_000; i++) {
            for (PartitionedRateLimiter<String> p : policies) {
                p.tryAcquire("k" + i, 1);
            }
            most = Math.max(most, store.unitsHeld());
        }
        assertTrue(most <= 1_000, "held " + most + " units, cells included, bound 1000");
        limiters.close();
    }

    private static int segmentIndex(String key, int segments) {
        int h = key.hashCode();
        return (h ^ (h >>> 16)) & (segments - 1);
    }

    static LocalDecisionStore storeOf(RateLimiters limiters) throws ReflectiveOperationException {
        var field = limiters.getClass().getDeclaredField("store");
        field.setAccessible(true);
        return (LocalDecisionStore) field.get(limiters);
    }
}
