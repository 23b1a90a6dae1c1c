package dev.sluice.it.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The decision semantics every backend honours; {@link ContractSuite} adds the queue. A backend's test class
 * extends {@link ContractSuite} and supplies a started {@link Backend}; every test runs unchanged.
 */
public abstract class CoreContract {

    /** The backend under test, started once for the class. */
    protected abstract Backend backend();

    static Stream<LimitSpec> limit100() {
        return Specs.withLimit(100).stream();
    }

    static Stream<LimitSpec> limit5() {
        return Specs.withLimit(5).stream();
    }

    static Stream<LimitSpec> timedLimit5() {
        return Specs.timedWithLimit(5).stream();
    }

    protected static String unique(String what) {
        return what + "-" + UUID.randomUUID();
    }

    protected RateLimiter limiter(RateLimiters limiters, String name, LimitSpec spec) {
        return limiters.limiter(name, spec, LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).build());
    }

    /** {@code attempts} acquisitions of one permit from 32 threads at once, spread over {@code limiters}: the grants. */
    public static int grantedFrom32Threads(List<RateLimiter> limiters, int attempts) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(32);
        AtomicInteger granted = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < 32; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = thread; i < attempts; i += 32) {
                        if (limiters.get(i % limiters.size()).tryAcquire(1).isAcquired()) {
                            granted.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(2, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        return granted.get();
    }

    /** 1,000 acquisitions from 32 threads over every replica: exactly the limit is granted. */
    @ParameterizedTest
    @MethodSource("limit100")
    void tryAcquire_heavyConcurrencyFromEveryReplica_grantsExactlyTheLimit(LimitSpec spec) throws Exception {
        String name = unique("exact");
        List<RateLimiter> limiters = backend().replicas().stream().map(r -> limiter(r, name, spec)).toList();
        int granted = grantedFrom32Threads(limiters, 1_000);
        assertEquals(100, granted, spec.algorithm() + " on " + backend().name());
        // Concurrency: the 100 leases are still held, so nothing more fits.
        assertFalse(limiters.get(0).tryAcquire(1).isAcquired());
    }

    /**
     * A chain (this spec, then 60 for everyone) under 32 threads over every replica: exactly 60 stand, and the
     * first link holds exactly those 60 afterwards, every refused chain's grant having been refunded.
     */
    @ParameterizedTest
    @MethodSource("limit100")
    void chain_heavyConcurrencyFromEveryReplica_exactOnEveryLinkAndRefundsExact(LimitSpec spec) throws Exception {
        String name = unique("chain");
        LimitSpec everyone = LimitSpec.fixedWindow(60, Duration.ofHours(1));
        List<RateLimiter> chains = backend().replicas().stream()
                .map(r -> RateLimiters.chain(limiter(r, name + "-first", spec), limiter(r, name + "-everyone", everyone)))
                .toList();
        int granted = grantedFrom32Threads(chains, 400);
        assertEquals(60, granted, spec.algorithm() + " chain on " + backend().name());
        RateLimiter first = limiter(backend().limiters(), name + "-first", spec);
        assertEquals(40, first.tryAcquire(0).remaining(), spec.algorithm() + ": the first link holds the 60 that stand");
    }

    @ParameterizedTest
    @MethodSource("limit5")
    void tryAcquire_zeroPermits_probesWithoutConsuming(LimitSpec spec) {
        RateLimiter limiter = limiter(backend().limiters(), unique("probe"), spec);
        for (int i = 0; i < 10; i++) {
            assertTrue(limiter.tryAcquire(0).isAcquired(), "probe " + i);
        }
        assertEquals(5, limiter.tryAcquire(0).remaining());
        for (int i = 0; i < 5; i++) {
            assertTrue(limiter.tryAcquire(1).isAcquired(), "acquire " + i);
        }
        Lease probe = limiter.tryAcquire(0);
        assertFalse(probe.isAcquired());
        assertEquals(0, probe.remaining());
    }

    @ParameterizedTest
    @MethodSource("limit5")
    void tryAcquire_permitsOutOfRange_throwsNamingValueAndBound(LimitSpec spec) {
        RateLimiter limiter = limiter(backend().limiters(), unique("range"), spec);
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> limiter.tryAcquire(-1));
        assertTrue(negative.getMessage().contains("-1") && negative.getMessage().contains("5"), negative.getMessage());
        IllegalArgumentException tooMany = assertThrows(IllegalArgumentException.class, () -> limiter.tryAcquire(6));
        assertTrue(tooMany.getMessage().contains("6") && tooMany.getMessage().contains("5"), tooMany.getMessage());
        assertThrows(IllegalArgumentException.class, () -> limiter.acquireAsync(6));
        assertEquals(5, limiter.tryAcquire(0).remaining(), "a rejected call consumed nothing");
    }

    /** The same request fails one millisecond before {@code retryAfter} and succeeds at it. */
    @ParameterizedTest
    @MethodSource("timedLimit5")
    void tryAcquire_overLimit_retryAfterIsExact(LimitSpec spec) {
        RateLimiter limiter = limiter(backend().limiters(), unique("retry"), spec);
        for (int i = 0; i < 5; i++) {
            assertTrue(limiter.tryAcquire(1).isAcquired());
        }
        Lease refused = limiter.tryAcquire(1);
        assertFalse(refused.isAcquired());
        Duration retryAfter = refused.retryAfter().orElseThrow();
        assertTrue(retryAfter.toMillis() > 0, retryAfter.toString());
        backend().clock().advance(retryAfter.minusMillis(1));
        assertFalse(limiter.tryAcquire(1).isAcquired(), "one millisecond early");
        backend().clock().advance(Duration.ofMillis(1));
        assertTrue(limiter.tryAcquire(1).isAcquired(), "at retryAfter");
    }

    @ParameterizedTest
    @MethodSource("limit5")
    void tryAcquire_differentKeys_haveSeparateBudgets(LimitSpec spec) {
        RateLimiters limiters = backend().limiters();
        RateLimiter a = limiter(limiters, unique("a"), spec);
        RateLimiter b = limiter(limiters, unique("b"), spec);
        assertTrue(a.tryAcquire(5).isAcquired());
        assertFalse(a.tryAcquire(1).isAcquired());
        assertTrue(b.tryAcquire(5).isAcquired());
    }

    /** Once the state's lifetime has passed, the key reads as fresh (idle state never lingers as budget). */
    @ParameterizedTest
    @MethodSource("limit5")
    void tryAcquire_afterResetAfter_keyIsFresh(LimitSpec spec) {
        RateLimiter limiter = limiter(backend().limiters(), unique("fresh"), spec);
        Lease first = limiter.tryAcquire(5);
        assertTrue(first.isAcquired());
        backend().clock().advance(first.resetAfter().plusMillis(1));
        assertEquals(5, limiter.tryAcquire(0).remaining());
        assertTrue(limiter.tryAcquire(5).isAcquired());
    }

    @Test
    void tryAcquire_keyHoldsAnotherAlgorithmsState_throwsInsteadOfMisreading() {
        String name = unique("foreign");
        RateLimiter tokens = limiter(backend().limiters(), name, LimitSpec.tokenBucket(5, 1, Duration.ofSeconds(1)));
        assertTrue(tokens.tryAcquire(1).isAcquired());
        RateLimiter log = limiter(backend().limiters(), name, LimitSpec.slidingLog(5, Duration.ofSeconds(1)));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> log.tryAcquire(1));
        assertTrue(e.getMessage().contains("token-bucket"), e.getMessage());
        assertEquals(4, tokens.tryAcquire(0).remaining(), "the original state is intact");
    }

    /** Asked explicitly, a limiter starts over a key that holds another algorithm's state, in one atomic step. */
    @Test
    void tryAcquire_keyHoldsAnotherAlgorithmsState_replacedWhenAskedExplicitly() {
        String name = unique("replace");
        RateLimiter tokens = limiter(backend().limiters(), name, LimitSpec.tokenBucket(5, 1, Duration.ofSeconds(1)));
        assertTrue(tokens.tryAcquire(3).isAcquired());
        RateLimiter log = backend().limiters().limiter(name, LimitSpec.slidingLog(5, Duration.ofSeconds(1)),
                LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10)).replaceForeignState(true).build());
        Lease fresh = log.tryAcquire(1);
        assertTrue(fresh.isAcquired());
        assertEquals(4, fresh.remaining(), "a fresh key under the new algorithm");
        assertEquals(4, log.tryAcquire(0).remaining(), "its own state is kept, not replaced again");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> tokens.tryAcquire(1));
        assertTrue(e.getMessage().contains("sliding-log"), "the old limiter, not asked to replace: " + e.getMessage());
    }

    /** Old spec, new spec of the same algorithm, and how many the new one grants after 4 were taken under the old. */
    static Stream<org.junit.jupiter.params.provider.Arguments> liveChanges() {
        Duration minute = Duration.ofMinutes(1);
        return Stream.of(
                org.junit.jupiter.params.provider.Arguments.of(LimitSpec.fixedWindow(10, minute), LimitSpec.fixedWindow(6, minute), 2),
                org.junit.jupiter.params.provider.Arguments.of(LimitSpec.slidingLog(10, minute), LimitSpec.slidingLog(13, minute), 9),
                org.junit.jupiter.params.provider.Arguments.of(LimitSpec.slidingCounter(10, minute), LimitSpec.slidingCounter(12, minute), 8),
                org.junit.jupiter.params.provider.Arguments.of(LimitSpec.slidingWindow(10, minute, 6), LimitSpec.slidingWindow(15, minute, 4), 11),
                org.junit.jupiter.params.provider.Arguments.of(LimitSpec.tokenBucket(10, 1, minute), LimitSpec.tokenBucket(20, 1, minute), 6),
                org.junit.jupiter.params.provider.Arguments.of(LimitSpec.gcra(1, minute, 10), LimitSpec.gcra(1, minute, 12), 8),
                org.junit.jupiter.params.provider.Arguments.of(
                        LimitSpec.allOf(LimitSpec.fixedWindow(10, minute), LimitSpec.slidingLog(20, Duration.ofHours(1))),
                        LimitSpec.allOf(LimitSpec.fixedWindow(15, Duration.ofMinutes(2)), LimitSpec.slidingLog(30, Duration.ofHours(1))), 11));
    }

    /**
     * A limit changed live on this store keeps what was consumed; and two replicas running the old and the new
     * spec at once (a rollout) admit between the smaller and the larger limit, never a fresh budget each.
     */
    @ParameterizedTest
    @MethodSource("liveChanges")
    void limitChangedLive_keepsWhatWasConsumed_andARolloutNeverStartsOver(LimitSpec before, LimitSpec after,
            int expected) {
        String name = unique("live");
        RateLimiter old = limiter(backend().limiters(), name, before);
        for (int i = 0; i < 4; i++) {
            assertTrue(old.tryAcquire(1).isAcquired());
        }
        RateLimiter changed = limiter(backend().replicas().get(backend().replicas().size() - 1), name, after);
        int granted = 0;
        for (int i = 0; i < 30; i++) {
            granted += changed.tryAcquire(1).isAcquired() ? 1 : 0;
        }
        assertEquals(expected, granted, before + " -> " + after);

        String rollout = unique("rollout");
        RateLimiter a = limiter(backend().limiters(), rollout, before);
        RateLimiter b = limiter(backend().replicas().get(backend().replicas().size() - 1), rollout, after);
        int both = 0;
        for (int i = 0; i < 60; i++) {
            both += (i % 2 == 0 ? a : b).tryAcquire(1).isAcquired() ? 1 : 0;
        }
        long smaller = Math.min(before.limit(), after.limit());
        long larger = Math.max(before.limit(), after.limit());
        assertTrue(both >= smaller && both <= larger, before + " and " + after + " at once: " + both);
    }

    /**
     * Regression: partition ids {@code bob?}, {@code bob\uD800} and {@code bob\uDFFF} shared one entry (3, 0 and 0
     * grants): a lone surrogate has no UTF-8 form, and the encoder wrote {@code ?}. Such an id is a usage error,
     * thrown at the call site, which no failure mode turns into a grant.
     */
    @Test
    void partition_loneSurrogateId_isRefusedAtTheCallSiteEvenFailingOpen() throws Exception {
        PartitionedRateLimiter<String> perClient = backend().limiters().partitioned(unique("surrogates"),
                LimitSpec.fixedWindow(3, Duration.ofMinutes(1)),
                LimiterOptions.builder().failureMode(FailureMode.ALLOW).decisionTimeout(Duration.ofSeconds(10)).build());
        for (int i = 0; i < 3; i++) {
            assertTrue(perClient.tryAcquire("bob?", 1).isAcquired());
        }
        for (String lone : new String[] {"bob\uD800", "bob\uDFFF"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> perClient.tryAcquire(lone, 1));
            assertTrue(e.getMessage().contains("surrogate") && e.getMessage().contains("index 3"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> perClient.acquireAsync(lone, 1));
            assertThrows(IllegalArgumentException.class, () -> Keys.sha256(lone));
        }
        assertTrue(perClient.tryAcquire("bob\uD83D\uDE00", 3).isAcquired(), "a surrogate pair is an id of its own");
        assertFalse(perClient.tryAcquire("bob?", 1).isAcquired(), "bob? kept its own spent budget");
    }

    static Stream<org.junit.jupiter.params.provider.Arguments> longerWindows() {
        Duration minute = Duration.ofMinutes(1);
        Duration hour = Duration.ofHours(1);
        return Stream.of(
                org.junit.jupiter.params.provider.Arguments.of(LimitSpec.slidingLog(10, minute), LimitSpec.slidingLog(10, hour)),
                org.junit.jupiter.params.provider.Arguments.of(LimitSpec.fixedWindow(10, minute), LimitSpec.fixedWindow(10, hour)),
                org.junit.jupiter.params.provider.Arguments.of(LimitSpec.slidingWindow(10, minute, 6), LimitSpec.slidingWindow(10, hour, 6)),
                org.junit.jupiter.params.provider.Arguments.of(LimitSpec.slidingCounter(10, minute), LimitSpec.slidingCounter(10, hour)),
                org.junit.jupiter.params.provider.Arguments.of(LimitSpec.tokenBucket(10, 10, minute), LimitSpec.tokenBucket(10, 1, hour)));
    }

    /**
     * Regression: 10 taken under a 1-minute spec, then refused at 30 s by a replica with the 1-hour spec, granted
     * 10 more at 61 s (121 s for the sliding counter): the refusal wrote nothing, and the state's old expiry passed.
     */
    @ParameterizedTest
    @MethodSource("longerWindows")
    void limitChangedLiveToALongerWindow_refusalKeepsTheConsumption(LimitSpec before, LimitSpec after) {
        String name = unique("longer");
        long intoHour = Math.floorMod(backend().clock().millis(), Duration.ofHours(1).toMillis());
        // Five minutes into an hour, so that the new spec's aligned hour outlasts the test's two minutes.
        backend().clock().advance(Duration.ofHours(1).plusMinutes(5).minusMillis(intoHour));
        RateLimiter old = limiter(backend().limiters(), name, before);
        assertTrue(old.tryAcquire(10).isAcquired());
        RateLimiter changed = limiter(backend().replicas().get(backend().replicas().size() - 1), name, after);
        backend().clock().advance(Duration.ofSeconds(30));
        assertFalse(changed.tryAcquire(1).isAcquired(), "at 30 s");
        backend().clock().advance(Duration.ofSeconds(31));
        assertFalse(changed.tryAcquire(1).isAcquired(), before + " -> " + after + " at 61 s");
        backend().clock().advance(Duration.ofSeconds(60));
        assertFalse(changed.tryAcquire(1).isAcquired(), before + " -> " + after + " at 121 s");
    }

    @Test
    void concurrency_closeReleasesAndTokensIncrease() {
        RateLimiter limiter = limiter(backend().limiters(), unique("lease"), LimitSpec.concurrency(2));
        Lease first = limiter.tryAcquire(1);
        Lease second = limiter.tryAcquire(1);
        assertTrue(first.isAcquired() && second.isAcquired());
        assertFalse(limiter.tryAcquire(1).isAcquired());
        assertTrue(second.fencingToken().getAsLong() > first.fencingToken().getAsLong());
        first.close();
        first.close(); // at most once
        Lease third = awaitAcquired(limiter);
        assertTrue(third.fencingToken().getAsLong() > second.fencingToken().getAsLong());
        assertFalse(limiter.tryAcquire(1).isAcquired(), "a double close released only once");
        second.close();
        third.close();
    }

    @Test
    void concurrency_leaseExpiresWhenNotRenewed() {
        RateLimiter limiter = limiter(backend().limiters(), unique("expire"),
                LimitSpec.concurrency(1, Duration.ofSeconds(30)));
        Lease held = limiter.tryAcquire(1);
        assertTrue(held.isAcquired());
        limiter.close(); // stops renewal; the lease stays in the store until it expires
        RateLimiter other = limiter(backend().limiters(), limiter.name(),
                LimitSpec.concurrency(1, Duration.ofSeconds(30)));
        assertFalse(other.tryAcquire(1).isAcquired());
        backend().clock().advance(Duration.ofSeconds(30));
        assertTrue(other.tryAcquire(1).isAcquired(), "expired after the lease duration");
    }

    /** Renewal keeps a lease alive far past its duration; the clock moves only while renewals run. */
    @Test
    void concurrency_renewalKeepsLeaseAlivePastItsDuration() throws Exception {
        RateLimiter limiter = backend().limiters().limiter(unique("renew"), LimitSpec.concurrency(1, Duration.ofSeconds(30)),
                LimiterOptions.builder().renewInterval(Duration.ofMillis(10)).decisionTimeout(Duration.ofSeconds(10))
                        .build());
        Lease held = limiter.tryAcquire(1);
        assertTrue(held.isAcquired());
        for (int second = 0; second < 90; second++) {
            backend().clock().advance(Duration.ofSeconds(1));
            Thread.sleep(15); // lets the 10 ms renewal run between one-second steps of the fake clock
            assertFalse(limiter.tryAcquire(0).isAcquired(), "lease lost at " + second + " s");
        }
        held.close();
        assertNotEquals(0, awaitAcquired(limiter).fencingToken().orElse(0));
    }

    /** Waits (bounded) for an asynchronous release to land, then acquires. */
    protected static Lease awaitAcquired(RateLimiter limiter) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Lease lease = limiter.tryAcquire(1);
            if (lease.isAcquired()) {
                return lease;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("not acquired within 30 s");
    }
}
