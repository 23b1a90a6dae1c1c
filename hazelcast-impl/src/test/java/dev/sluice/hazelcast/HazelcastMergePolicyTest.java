package dev.sluice.hazelcast;

import dev.sluice.limiter.algorithm.StoredState;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.spi.merge.MergingValue;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.StateMerge;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * After a split brain heals, a key keeps the consumption of both sides: whatever either side granted is
 * still spent after the merge.
 */
final class HazelcastMergePolicyTest {
    private static final long T0 = 1_900_000_000_000L - 1_900_000_000_000L % 3_600_000L; // aligned to the hour
    private final SluiceMergePolicy policy = new SluiceMergePolicy();

    private static MergingValue<Object> value(Object v) {
        return new TestMergingValue(v);
    }

    private long[] merge(long[] merging, long[] existing) {
        return StoredState.unpack((long[]) policy.merge(value(merging), existing == null ? null : value(existing)));
    }

    /** Runs {@code n} single-permit acquisitions at {@code now}, all granted. */
    private static long[] take(LimitSpec spec, long[] state, long now, int n) {
        long[] s = state;
        for (int i = 0; i < n; i++) {
            Verdict v = Algorithms.acquire(spec, s, now, 1);
            assertTrue(v.granted(), spec.algorithm() + " acquisition " + i);
            s = v.state();
        }
        return s;
    }

    private static long remaining(LimitSpec spec, long[] state, long now) {
        return Algorithms.acquire(spec, state, now, 0).remaining();
    }

    @Test
    void fixedWindow_sameWindow_keepsTheHigherCount() {
        LimitSpec spec = LimitSpec.fixedWindow(10, Duration.ofMinutes(1));
        long[] a = take(spec, null, T0 + 1_000, 3);
        long[] b = take(spec, null, T0 + 2_000, 7);
        assertEquals(3, remaining(spec, merge(a, b), T0 + 3_000));
        assertEquals(3, remaining(spec, merge(b, a), T0 + 3_000));
    }

    @Test
    void fixedWindow_differentWindows_keepsTheNewer() {
        LimitSpec spec = LimitSpec.fixedWindow(10, Duration.ofMinutes(1));
        long[] old = take(spec, null, T0 + 1_000, 9);
        long[] newer = take(spec, null, T0 + 61_000, 2);
        assertSame(newer, merge(old, newer));
        assertEquals(8, remaining(spec, merge(newer, old), T0 + 62_000));
    }

    @Test
    void slidingWindow_keepsTheHigherCountPerSegment() {
        LimitSpec spec = LimitSpec.slidingWindow(10, Duration.ofMinutes(1), 6);
        long[] a = take(spec, take(spec, null, T0, 4), T0 + 20_000, 1); // 4 in segment 0, 1 in segment 2
        long[] b = take(spec, take(spec, null, T0, 1), T0 + 20_000, 3); // 1 in segment 0, 3 in segment 2
        long[] merged = merge(a, b);
        assertEquals(3, remaining(spec, merged, T0 + 25_000)); // 4 + 3 spent
        assertEquals(7, remaining(spec, merged, T0 + 60_000)); // segment 0 left the window: 3 spent
        assertEquals(3, remaining(spec, merge(b, a), T0 + 25_000));
    }

    @Test
    void slidingLog_keepsTheNewestEntriesOfBoth() {
        LimitSpec spec = LimitSpec.slidingLog(5, Duration.ofMinutes(1));
        long[] a = take(spec, null, T0, 2);
        long[] b = take(spec, null, T0 + 30_000, 4);
        long[] merged = merge(a, b);
        assertEquals(1, remaining(spec, merged, T0 + 31_000)); // at least b's 4
        assertEquals(1, remaining(spec, merged, T0 + 61_000)); // a's entries gone; b's 4 remain
        assertEquals(5, remaining(spec, merged, T0 + 91_000));
    }

    @Test
    void slidingCounter_sameWindowKeepsHigherCounts_nextWindowKeepsOlderAsPrevious() {
        LimitSpec spec = LimitSpec.slidingCounter(10, Duration.ofMinutes(1));
        long[] a = take(spec, null, T0 + 1_000, 6);
        long[] b = take(spec, null, T0 + 2_000, 2);
        assertEquals(4, remaining(spec, merge(b, a), T0 + 3_000));
        long[] next = take(spec, null, T0 + 61_000, 1); // the other side saw nothing of the previous window
        long[] merged = merge(a, next);
        // At the start of the next window, a's 6 still weigh almost fully, plus next's 1.
        assertEquals(10 - 6 - 1, remaining(spec, merged, T0 + 61_000));
    }

    @Test
    void tokenBucket_keepsFewerTokensWithTheLaterRefill() {
        LimitSpec spec = LimitSpec.tokenBucket(10, 1, Duration.ofSeconds(10));
        long[] a = take(spec, null, T0, 8);            // 2 left, refill clock at T0
        long[] b = take(spec, null, T0 + 25_000, 3);   // 7 left, refill clock at T0 + 25 s
        long[] merged = merge(a, b);
        for (long t = T0 + 25_000; t <= T0 + 200_000; t += 5_000) {
            long m = remaining(spec, merged, t);
            assertTrue(m <= remaining(spec, a, t) && m <= remaining(spec, b, t), "at +" + (t - T0) + " ms");
        }
        assertEquals(2, remaining(spec, merged, T0 + 25_000));
        // Full again only 8 periods after the later refill time, and not read as absent before that.
        assertEquals(9, remaining(spec, merged, T0 + 25_000 + 79_999));
        assertEquals(10, remaining(spec, merged, T0 + 25_000 + 80_000));
    }

    @Test
    void gcra_keepsTheLaterArrivalTime() {
        LimitSpec spec = LimitSpec.gcra(1, Duration.ofSeconds(1), 10);
        long[] a = take(spec, null, T0, 3);
        long[] b = take(spec, null, T0, 8);
        assertEquals(remaining(spec, b, T0), remaining(spec, merge(a, b), T0));
        assertEquals(remaining(spec, b, T0), remaining(spec, merge(b, a), T0));
    }

    @Test
    void concurrency_keepsTheUnionOfLeases() {
        LimitSpec spec = LimitSpec.concurrency(5, Duration.ofMinutes(1));
        long[] a = take(spec, null, T0, 2);
        long[] b = take(spec, null, T0 + 1, 2);
        long[] merged = merge(a, b);
        assertEquals(1, remaining(spec, merged, T0 + 2));
        // A lease known to both sides counts once.
        long[] shared = take(spec, a, T0 + 2, 1);
        assertEquals(2, remaining(spec, merge(shared, a), T0 + 3));
        // A token issued after the merge is above every token of both sides.
        Verdict next = Algorithms.acquire(spec, merged, T0 + 3, 1);
        assertTrue(next.granted());
        assertFalse(Algorithms.acquire(spec, next.state(), T0 + 3, 1).granted());
    }

    @Test
    void merge_absentOrForeignSide_keepsTheSluiceState() {
        LimitSpec spec = LimitSpec.fixedWindow(10, Duration.ofMinutes(1));
        long[] a = take(spec, null, T0, 1);
        assertSame(a, policy.merge(value(a), null));
        assertSame(a, merge(a, new long[] {1, 2}));
        assertSame(a, merge(new long[] {1, 2}, a));
    }

    /**
     * The expiry of a merged entry can only be set on Hazelcast's own map merging entry; any other merging
     * value (here a plain {@link MergingValue}) is merged the same way, without failing.
     */
    @Test
    void merge_mergingValueOfAnotherClass_mergesTheStatesWithoutSettingExpiry() {
        LimitSpec spec = LimitSpec.concurrency(2, Duration.ofSeconds(20));
        long[] a = take(spec, null, T0, 1);
        long[] b = take(spec, null, T0 + 5_000, 1);
        assertArrayEquals(StateMerge.merge(b, a), merge(a, b));
        assertSame(a, policy.merge(value(a), null));
    }

    @Test
    void merge_differentAlgorithms_keepsTheNewerState() {
        long[] window = take(LimitSpec.fixedWindow(10, Duration.ofMinutes(1)), null, T0, 1);
        long[] bucket = take(LimitSpec.tokenBucket(10, 1, Duration.ofMinutes(1)), null, T0 + 5, 1);
        assertSame(bucket, merge(window, bucket));
        assertSame(bucket, merge(bucket, window));
    }

    @Test
    void concurrency_ops_renewOnOneSide_keepsTheLaterExpiry() {
        LimitSpec spec = LimitSpec.concurrency(1, Duration.ofSeconds(30));
        Verdict granted = Algorithms.acquire(spec, null, T0, 1);
        long[] renewed = Algorithms.step(spec, granted.state(), T0 + 20_000, Op.RENEW, 0, granted.token()).state();
        long[] merged = merge(granted.state(), renewed);
        assertFalse(Algorithms.acquire(spec, merged, T0 + 40_000, 1).granted(), "the renewed lease still holds");
    }
}
