package dev.sluice.limiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link RateLimiters#chain}: all or nothing across keys, on the in-process store and a failing one. */
final class ChainTest {
    private final ManualClock clock = new ManualClock(Instant.parse("2026-12-01T10:00:00.123Z"));
    private final RateLimiters limiters = LocalRateLimiters.create(clock);
    private final ControllableStore failing = new ControllableStore();
    private final RateLimiters failingLimiters = RateLimiterRuntime.create(failing);

    @AfterEach
    void close() {
        limiters.close();
        failingLimiters.close();
    }

    private PartitionedRateLimiter<String> global(LimitSpec spec) {
        return limiters.partitioned("global", spec, LimiterOptions.defaults(), p -> "all");
    }

    @Test
    void laterLinkRefuses_earlierLinkGetsItsPermitsBack() {
        PartitionedRateLimiter<String> perClient = limiters.partitioned("client", LimitSpec.fixedWindow(5, Duration.ofSeconds(1)));
        PartitionedRateLimiter<String> everyone = global(LimitSpec.slidingLog(3, Duration.ofSeconds(1)));
        PartitionedRateLimiter<String> chain = RateLimiters.chain(perClient, everyone);
        assertTrue(chain.tryAcquire("a", 1).isAcquired());
        assertTrue(chain.tryAcquire("a", 1).isAcquired());
        assertTrue(chain.tryAcquire("b", 1).isAcquired());
        Lease refused = chain.tryAcquire("b", 1);
        assertFalse(refused.isAcquired());
        assertEquals(3, refused.limit(), "the refusing link's lease: the global limit");
        assertTrue(refused.retryAfter().isPresent());
        assertEquals(3, perClient.tryAcquire("a", 0).remaining(), "a: 2 taken");
        assertEquals(4, perClient.tryAcquire("b", 0).remaining(), "b: 1 taken, the refused one given back");
        assertEquals(3, chain.statistics().granted());
        assertEquals(1, chain.statistics().refused());
        assertEquals("chain(client, global)", chain.name());
    }

    static Stream<LimitSpec> firstLinks() {
        return Stream.of(LimitSpec.fixedWindow(4, Duration.ofMillis(1_300)),
                LimitSpec.slidingWindow(4, Duration.ofMillis(1_200), 6),
                LimitSpec.slidingLog(4, Duration.ofMillis(1_100)),
                LimitSpec.slidingCounter(4, Duration.ofMillis(900)),
                LimitSpec.tokenBucket(4, 1, Duration.ofMillis(170)),
                LimitSpec.gcra(2, Duration.ofMillis(700), 4),
                LimitSpec.allOf(LimitSpec.fixedWindow(4, Duration.ofMillis(400)), LimitSpec.tokenBucket(5, 1, Duration.ofMillis(90))),
                LimitSpec.concurrency(4, Duration.ofSeconds(5)));
    }

    /** Whatever the first link's algorithm, a chain refused by the second one spends nothing of the first. */
    @ParameterizedTest
    @MethodSource("firstLinks")
    void everyAlgorithm_refusedChainSpendsNothing(LimitSpec first) {
        RateLimiter a = limiters.limiter("first", first);
        RateLimiter spent = limiters.limiter("spent", LimitSpec.fixedWindow(1, Duration.ofHours(1)));
        assertTrue(spent.tryAcquire(1).isAcquired());
        RateLimiter chain = RateLimiters.chain(a, spent);
        for (int i = 0; i < 20; i++) {
            assertFalse(chain.tryAcquire(1).isAcquired());
            clock.advance(Duration.ofMillis(3));
        }
        assertEquals(first.limit(), a.tryAcquire(0).remaining(), first + ": all given back");
    }

    @Test
    void grantedChain_closesAndRefundsEveryLink() throws Exception {
        RateLimiter held = limiters.limiter("held", LimitSpec.concurrency(2, Duration.ofSeconds(5)));
        RateLimiter rate = limiters.limiter("rate", LimitSpec.tokenBucket(3, 1, Duration.ofSeconds(1)));
        RateLimiter chain = RateLimiters.chain(held, rate);
        Lease lease = chain.tryAcquire(1);
        assertTrue(lease.isAcquired());
        assertTrue(lease.fencingToken().isPresent(), "the concurrency link's token");
        assertEquals(1, lease.remaining(), "the smallest remaining: held 1, rate 2");
        assertTrue(lease.refund().get(5, TimeUnit.SECONDS));
        assertEquals(2, held.tryAcquire(0).remaining());
        assertEquals(3, rate.tryAcquire(0).remaining());
        assertFalse(lease.refund().get(5, TimeUnit.SECONDS), "at most once");
        assertEquals(3, rate.tryAcquire(0).remaining());
    }

    @Test
    void permitsAboveAnyLinksLimit_areRefusedUpFront_namingTheLink() {
        RateLimiter big = limiters.limiter("big", LimitSpec.fixedWindow(10, Duration.ofSeconds(1)));
        RateLimiter small = limiters.limiter("small", LimitSpec.fixedWindow(2, Duration.ofSeconds(1)));
        RateLimiter chain = RateLimiters.chain(big, small);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> chain.tryAcquire(3));
        assertTrue(e.getMessage().contains("'small'") && e.getMessage().contains("was 3"), e.getMessage());
        assertEquals(10, big.tryAcquire(0).remaining(), "nothing taken before the check");
        assertThrows(IllegalArgumentException.class, () -> RateLimiters.chain(big));
        assertThrows(NullPointerException.class, () -> RateLimiters.chain(big, null));
    }

    private RateLimiter failingLink(FailureMode mode) {
        return failingLimiters.limiter("remote", LimitSpec.fixedWindow(100, Duration.ofMinutes(1)),
                LimiterOptions.builder().failureMode(mode).maxRetries(0).decisionTimeout(Duration.ofMillis(200)).build());
    }

    @Test
    void linkThatCannotDecide_followsItsFailureMode() {
        RateLimiter local = limiters.limiter("local", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)));
        failing.mode = ControllableStore.Mode.FAIL;

        DecisionUnavailableException thrown = assertThrows(DecisionUnavailableException.class,
                () -> RateLimiters.chain(local, failingLink(FailureMode.THROW)).tryAcquire(1));
        assertEquals("remote", thrown.limiter());
        assertEquals(5, local.tryAcquire(0).remaining(), "THROW: the earlier link refunded");

        Lease denied = RateLimiters.chain(local, failingLink(FailureMode.DENY)).tryAcquire(1);
        assertFalse(denied.isAcquired());
        assertTrue(denied.isDegraded());
        assertEquals(5, local.tryAcquire(0).remaining(), "DENY: the earlier link refunded");

        Lease allowed = RateLimiters.chain(local, failingLink(FailureMode.ALLOW)).tryAcquire(1);
        assertTrue(allowed.isAcquired());
        assertTrue(allowed.isDegraded());
        assertEquals(4, local.tryAcquire(0).remaining(), "ALLOW: the earlier link's grant stands");
    }

    @Test
    void asyncChain_waitsInALinksQueue_andCancellingRefunds() throws Exception {
        RateLimiter first = limiters.limiter("first", LimitSpec.slidingLog(5, Duration.ofHours(1)));
        RateLimiter queued = limiters.limiter("queued", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().queueLimit(10).pollInterval(Duration.ofMillis(20)).build());
        assertTrue(queued.tryAcquire(1).isAcquired());
        RateLimiter chain = RateLimiters.chain(first, queued);

        CompletableFuture<Lease> waiting = chain.acquireAsync(1);
        awaitQueued(queued, 1);
        assertFalse(waiting.isDone());
        assertEquals(4, first.tryAcquire(0).remaining(), "held while the later link queues");
        assertTrue(waiting.cancel(false));
        awaitQueued(queued, 0);
        awaitRemaining(first, 5);

        CompletableFuture<Lease> served = chain.acquireAsync(1);
        awaitQueued(queued, 1);
        clock.advance(Duration.ofMinutes(1));
        Lease lease = served.get(5, TimeUnit.SECONDS);
        assertTrue(lease.isAcquired());
        assertEquals(0, lease.remaining());
        assertEquals(4, first.tryAcquire(0).remaining());
    }

    @Test
    void acquireWithMaxWait_timesOutAndRefunds() throws Exception {
        RateLimiter first = limiters.limiter("first", LimitSpec.slidingLog(5, Duration.ofMinutes(1)));
        RateLimiter queued = limiters.limiter("queued", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().queueLimit(10).build());
        assertTrue(queued.tryAcquire(1).isAcquired());
        Lease lease = RateLimiters.chain(first, queued).acquire(1, Duration.ofMillis(100));
        assertFalse(lease.isAcquired());
        awaitRemaining(first, 5);
        awaitQueued(queued, 0);
    }

    /**
     * 32 threads, 8 clients, per client 10 and for everyone 25, all at one instant: exactly 25 stand, no client
     * above 10, and what the per-client links hold afterwards is exactly what the standing grants took.
     */
    @Test
    void concurrentCallers_exactOnEveryLink_andNothingLeaks() throws Exception {
        PartitionedRateLimiter<String> perClient = limiters.partitioned("client", LimitSpec.fixedWindow(10, Duration.ofMinutes(1)));
        PartitionedRateLimiter<String> everyone = global(LimitSpec.tokenBucket(25, 1, Duration.ofMinutes(1)));
        PartitionedRateLimiter<String> chain = RateLimiters.chain(perClient, everyone);
        ConcurrentHashMap<String, AtomicInteger> granted = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(32);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 32; t++) {
            int thread = t;
            done.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < 40; i++) {
                    String client = "c" + ((thread + i) % 8);
                    if (chain.tryAcquire(client, 1).isAcquired()) {
                        granted.computeIfAbsent(client, c -> new AtomicInteger()).incrementAndGet();
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
        int total = granted.values().stream().mapToInt(AtomicInteger::get).sum();
        assertEquals(25, total, "the global limit, exactly");
        for (int c = 0; c < 8; c++) {
            String client = "c" + c;
            int standing = granted.getOrDefault(client, new AtomicInteger()).get();
            assertTrue(standing <= 10, client + ": " + standing);
            assertEquals(10 - standing, perClient.tryAcquire(client, 0).remaining(), client + ": refunds restored the rest");
        }
    }

    private static void awaitQueued(RateLimiter limiter, long permits) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (limiter.statistics().queuedPermits() != permits) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("queued permits of " + limiter.name() + ": " + limiter.statistics());
            }
            Thread.sleep(2);
        }
    }

    private static void awaitRemaining(RateLimiter limiter, long remaining) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (limiter.tryAcquire(0).remaining() != remaining) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(limiter.name() + " remaining " + limiter.tryAcquire(0).remaining());
            }
            Thread.sleep(2);
        }
    }
}
