package dev.sluice.prefilter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

final class RefusalCacheTest {
    private final ManualClock clock = new ManualClock();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    static Stream<LimitSpec> specs() {
        return Workloads.specs();
    }

    private CountingStore store() {
        return new CountingStore(clock);
    }

    private RateLimiters limiters(CountingStore store) {
        RateLimiters l = RateLimiterRuntime.create(store);
        toClose.add(l);
        return l;
    }

    private PrefilterOptions.Builder options() {
        return PrefilterOptions.builder().ticker(Workloads.ticker(clock));
    }

    /**
     * At 10× the limit an exact cache cannot save 90% of the calls: 10% of the requests are grants, and every
     * grant must reach the store. It saves nearly all refusals instead: one refusal per window reaches the
     * store for window algorithms, about one per grant for steady-rate ones (each refusal's retry-after is the
     * next permit).
     */
    @ParameterizedTest
    @MethodSource("specs")
    void tryAcquire_tenTimesTheLimit_decidesExactlyAsTheStoreWithFarFewerCalls(LimitSpec spec) {
        Workloads.Comparison c = Workloads.compareRefusalCache(spec, 10, 5, clock);
        assertEquals(c.plain(), c.wrapped(), "decisions (granted/refused, retryAfter) must be identical");
        assertEquals(c.requests(), c.plainCalls());
        long refused = c.requests() - c.granted();
        long refusalHops = c.wrappedCalls() - c.granted();
        assertTrue(refusalHops <= refused * 0.12, () -> "at least 88% of refusals answered locally: " + c);
        if (Workloads.isWindowed(spec)) {
            assertTrue(refusalHops <= 5, () -> "one refusal per window reaches the store: " + c);
            assertTrue(c.reduction() >= 0.89, () -> c.toString());
        } else {
            assertTrue(c.reduction() >= 0.78, () -> c.toString());
        }
    }

    @ParameterizedTest
    @MethodSource("specs")
    void tryAcquire_twentyTimesTheLimit_storeSeesAtLeast90PercentFewerCalls(LimitSpec spec) {
        Workloads.Comparison c = Workloads.compareRefusalCache(spec, 20, 5, clock);
        assertEquals(c.plain(), c.wrapped());
        assertTrue(c.reduction() >= (Workloads.isSteadyRate(spec) ? 0.89 : 0.90), () -> c.toString());
    }

    @ParameterizedTest
    @MethodSource("specs")
    void tryAcquire_mixedSizesAndProbes_decidesExactlyAsTheStore(LimitSpec spec) {
        CountingStore plainStore = store();
        CountingStore wrappedStore = store();
        RateLimiter plain = limiters(plainStore).limiter("mixed", spec);
        RateLimiter wrapped = LocalPrefilter.wrap(limiters(wrappedStore).limiter("mixed", spec), options().build());
        Random random = new Random(42);
        for (int i = 0; i < 3000; i++) {
            long permits = random.nextInt(4); // 0 is a probe
            boolean a = plain.tryAcquire(permits).isAcquired();
            boolean b = wrapped.tryAcquire(permits).isAcquired();
            assertEquals(a, b, "request " + i + " of " + permits + " permits");
            clock.advance(Duration.ofMillis(random.nextInt(8)));
        }
        assertTrue(wrappedStore.calls.get() < plainStore.calls.get());
    }

    /** A reset through the wrapper forgets the refusal it cached: the next request goes to the store and is granted. */
    @Test
    void reset_forgetsTheCachedRefusal() {
        RateLimiter wrapped = LocalPrefilter.wrap(
                limiters(store()).limiter("reset", LimitSpec.fixedWindow(2, Duration.ofMinutes(1))), options().build());
        assertTrue(wrapped.tryAcquire(2).isAcquired());
        assertFalse(wrapped.tryAcquire(1).isAcquired());
        assertTrue(((PrefilterLease) wrapped.tryAcquire(1)).isLocal(), "the refusal is cached");
        assertEquals(0, wrapped.inspect().remaining());
        assertEquals(2, wrapped.reset().remaining());
        PrefilterLease after = (PrefilterLease) wrapped.tryAcquire(1);
        assertTrue(after.isAcquired(), "no cached refusal outlives the reset");
        assertFalse(after.isLocal());
    }

    @Test
    void refusalOfLargeRequest_doesNotRefuseSmallerOnes() {
        RateLimiter wrapped = LocalPrefilter.wrap(
                limiters(store()).limiter("sizes", LimitSpec.fixedWindow(10, Duration.ofSeconds(1))), options().build());
        assertTrue(wrapped.tryAcquire(7).isAcquired());
        PrefilterLease refused = (PrefilterLease) wrapped.tryAcquire(5);
        assertFalse(refused.isAcquired());
        assertFalse(refused.isLocal());
        PrefilterLease again = (PrefilterLease) wrapped.tryAcquire(6);
        assertFalse(again.isAcquired());
        assertTrue(again.isLocal(), "a larger request is refused locally");
        PrefilterLease smaller = (PrefilterLease) wrapped.tryAcquire(3);
        assertTrue(smaller.isAcquired(), "a smaller request goes to the store and is granted");
        assertFalse(smaller.isLocal());
    }

    @Test
    void localRefusal_reportsTheStoresRetryAfterCountingDown() {
        RateLimiter wrapped = LocalPrefilter.wrap(
                limiters(store()).limiter("countdown", LimitSpec.fixedWindow(1, Duration.ofSeconds(1))),
                options().build());
        clock.set(java.time.Instant.parse("2030-01-01T00:00:00.200Z"));
        assertTrue(wrapped.tryAcquire().isAcquired());
        Lease fromStore = wrapped.tryAcquire();
        assertEquals(Duration.ofMillis(800), fromStore.retryAfter().orElseThrow());
        clock.advance(Duration.ofMillis(300));
        PrefilterLease local = (PrefilterLease) wrapped.tryAcquire();
        assertTrue(local.isLocal());
        assertEquals(Duration.ofMillis(500), local.retryAfter().orElseThrow());
        assertEquals(0, local.remaining());
        assertEquals(1, local.limit());
        assertFalse(local.isDegraded());
        assertEquals(Duration.ofMillis(500), local.resetAfter());
    }

    /** The local refusal is measured from the send time, so a slow store cannot make it outlive the store's. */
    @Test
    void localRefusal_withSlowStore_endsBeforeTheStoresInstant() {
        CountingStore slow = store();
        slow.beforeStep = () -> clock.advance(Duration.ofMillis(40)); // the request travels 40 ms to the step
        RateLimiter wrapped = LocalPrefilter.wrap(
                limiters(slow).limiter("slow", LimitSpec.fixedWindow(1, Duration.ofSeconds(1))), options().build());
        assertTrue(wrapped.tryAcquire().isAcquired()); // at 40 ms into the window
        long sent = clock.millis();
        Lease refusal = wrapped.tryAcquire(); // decided at 80 ms: retry after 920 ms, i.e. at 1000 ms
        long retryAfter = refusal.retryAfter().orElseThrow().toMillis();
        clock.set(java.time.Instant.ofEpochMilli(sent + retryAfter - 3));
        PrefilterLease local = (PrefilterLease) wrapped.tryAcquire();
        assertTrue(local.isLocal());
        clock.set(java.time.Instant.ofEpochMilli(sent + retryAfter));
        PrefilterLease asked = (PrefilterLease) wrapped.tryAcquire();
        assertFalse(asked.isLocal(), "expired locally by the send time + retryAfter, before the store's instant");
    }

    @Test
    void probe_isRefusedLocally_onlyAfterARefusalOfOnePermit() {
        RateLimiter wrapped = LocalPrefilter.wrap(
                limiters(store()).limiter("probe", LimitSpec.fixedWindow(4, Duration.ofSeconds(1))), options().build());
        assertTrue(wrapped.tryAcquire(2).isAcquired());
        assertFalse(wrapped.tryAcquire(3).isAcquired());
        PrefilterLease probe = (PrefilterLease) wrapped.tryAcquire(0);
        assertTrue(probe.isAcquired());
        assertFalse(probe.isLocal(), "a refusal of 3 says nothing about one permit");
        assertTrue(wrapped.tryAcquire(2).isAcquired());
        assertFalse(wrapped.tryAcquire(1).isAcquired());
        PrefilterLease probeAgain = (PrefilterLease) wrapped.tryAcquire(0);
        assertFalse(probeAgain.isAcquired());
        assertTrue(probeAgain.isLocal());
    }

    @Test
    void concurrencyLimiter_isNeverCached() {
        CountingStore store = store();
        RateLimiter wrapped = LocalPrefilter.wrap(
                limiters(store).limiter("conc", LimitSpec.concurrency(1, Duration.ofSeconds(30))), options().build());
        Lease held = wrapped.tryAcquire();
        assertTrue(held.isAcquired());
        for (int i = 0; i < 5; i++) {
            PrefilterLease refused = (PrefilterLease) wrapped.tryAcquire();
            assertFalse(refused.isAcquired());
            assertFalse(refused.isLocal());
        }
        assertEquals(6, store.calls.get());
        held.close(); // releases through the wrapped lease
        assertTrue(wrapped.tryAcquire().isAcquired() || store.calls.get() >= 7);
    }

    @Test
    void allowanceMode_onConcurrencyLimiter_throws() {
        RateLimiter conc = limiters(store()).limiter("conc", LimitSpec.concurrency(1));
        PrefilterOptions allowance = options().mode(PrefilterMode.ALLOWANCE).build();
        assertThrows(IllegalArgumentException.class, () -> LocalPrefilter.wrap(conc, allowance));
    }

    @Test
    void permitsOutOfRange_throwAtTheCallSite() {
        RateLimiter wrapped = LocalPrefilter.wrap(
                limiters(store()).limiter("range", LimitSpec.fixedWindow(5, Duration.ofSeconds(1))), options().build());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> wrapped.tryAcquire(6));
        assertTrue(e.getMessage().contains("between 0 and 5"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> wrapped.tryAcquire(-1));
    }

    @Test
    void listeners_countLocalRefusalsStoreCallsAndDecisions() {
        AtomicLong local = new AtomicLong();
        AtomicLong storeCalls = new AtomicLong();
        AtomicLong refusedDecisions = new AtomicLong();
        PrefilterListener prefilterListener = new PrefilterListener() {
            @Override
            public void onLocalDecision(String limiter, boolean granted, long permits) {
                local.incrementAndGet();
            }

            @Override
            public void onStoreCall(String limiter, long permits, boolean granted) {
                storeCalls.incrementAndGet();
            }
        };
        DecisionListener decisions = (limiter, result, nanos) -> {
            if (result == DecisionResult.REFUSED) {
                refusedDecisions.incrementAndGet();
            }
        };
        RateLimiter wrapped = LocalPrefilter.wrap(limiters(store()).limiter("listen",
                LimitSpec.fixedWindow(2, Duration.ofSeconds(1)), LimiterOptions.builder().listener(decisions).build()),
                options().listener(prefilterListener).build());
        for (int i = 0; i < 10; i++) {
            wrapped.tryAcquire();
        }
        assertEquals(7, local.get());
        assertEquals(3, storeCalls.get());
        assertEquals(8, refusedDecisions.get(), "the runtime's listener sees local refusals too");
        assertEquals(2, wrapped.statistics().granted());
        assertEquals(8, wrapped.statistics().refused());
    }

    @Test
    void partitioned_cachesEachPartitionSeparately() {
        CountingStore store = store();
        PartitionedRateLimiter<String> wrapped = LocalPrefilter.wrap(
                limiters(store).partitioned("login", LimitSpec.fixedWindow(1, Duration.ofSeconds(1)),
                        LimiterOptions.defaults()), options().build());
        assertTrue(wrapped.tryAcquire("a", 1).isAcquired());
        assertFalse(wrapped.tryAcquire("a", 1).isAcquired());
        assertTrue(((PrefilterLease) wrapped.tryAcquire("a", 1)).isLocal());
        PrefilterLease b = (PrefilterLease) wrapped.tryAcquire("b", 1);
        assertTrue(b.isAcquired());
        assertFalse(b.isLocal());
        assertEquals(3, store.calls.get());
    }

    @Test
    void acquireAsync_withoutQueue_refusesLocallyAndCompletesAtOnce() {
        RateLimiter wrapped = LocalPrefilter.wrap(
                limiters(store()).limiter("async", LimitSpec.fixedWindow(1, Duration.ofSeconds(1))), options().build());
        assertTrue(wrapped.acquireAsync(1).join().isAcquired());
        assertFalse(((PrefilterLease) wrapped.acquireAsync(1).join()).isLocal());
        PrefilterLease local = (PrefilterLease) wrapped.acquireAsync(1).join();
        assertTrue(local.isLocal());
        assertFalse(local.isAcquired());
    }

    @Test
    void closed_refusesUse() {
        RateLimiter wrapped = LocalPrefilter.wrap(
                limiters(store()).limiter("closed", LimitSpec.fixedWindow(1, Duration.ofSeconds(1))), options().build());
        wrapped.close();
        assertThrows(IllegalStateException.class, wrapped::tryAcquire);
    }
}
