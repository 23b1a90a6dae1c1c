package dev.sluice.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The in-flight pass's load, on the in-process backend and on contenders that answer as a test wants. */
final class InFlightLoadTest {

    private static SluiceContender local(int keys) {
        return new SluiceContender(LocalRateLimiters.create(), true, keys, SluiceContender.openSpec("token-bucket"),
                SluiceContender.closedSpec("token-bucket"), LimiterOptions.defaults(), key -> true);
    }

    @Test
    void sweep_decidesOnceOnEachKeyOfItsShare() throws Exception {
        ConcurrentHashMap<Integer, AtomicInteger> seen = new ConcurrentHashMap<>();
        Contender counting = new Contender() {
            @Override
            public boolean decide(int key, boolean open) {
                seen.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                return true;
            }

            @Override
            public void close() {}
        };
        assertEquals(0, InFlightLoad.sweep(counting, 1, 1_000, 2, 16));
        assertEquals(500, seen.size());
        assertTrue(seen.keySet().stream().allMatch(k -> k % 2 == 1), "keys of share 1 of 2 only");
        assertTrue(seen.values().stream().allMatch(n -> n.get() == 1), "once each");
    }

    @Test
    void load_countsGrantedDecisions_andGivesEveryPermitBack() throws Exception {
        try (SluiceContender sluice = local(1_000)) {
            InFlightLoad load = new InFlightLoad(sluice, 1_000, 64, 2);
            load.sampling(true);
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (load.completed() < 1_000 && System.nanoTime() < deadline) {
                Thread.sleep(10); // progress, not time, is what this waits for: a busy machine may be slow to start
            }
            load.close(); // throws if a decision were still in flight 30 s later
            long completed = load.completed();
            assertTrue(completed >= 1_000, "decisions completed: " + completed);
            assertEquals(completed, load.granted(), "every decision of an open key granted");
            assertEquals(0, load.failed());
            double[] p = load.percentilesMicros();
            assertTrue(p[2] > 0 && p[0] <= p[1] && p[1] <= p[2], () -> java.util.Arrays.toString(p));
        }
    }

    @Test
    void failures_counted_withTheFirstKept() throws Exception {
        IllegalStateException boom = new IllegalStateException("boom");
        Contender failing = new Contender() {
            @Override
            public boolean decide(int key, boolean open) {
                throw boom;
            }

            @Override
            public CompletableFuture<Boolean> decideAsync(int key, boolean open) {
                return CompletableFuture.failedFuture(boom);
            }

            @Override
            public void close() {}
        };
        InFlightLoad load = new InFlightLoad(failing, 10, 4, 1);
        Thread.sleep(20);
        load.close();
        assertTrue(load.failed() > 0);
        assertEquals(0, load.completed());
        assertSame(boom, load.firstFailure());
        assertEquals(10, InFlightLoad.sweep(failing, 0, 10, 1, 4));
    }
}
