package dev.sluice.hazelcast;

import dev.sluice.limiter.Coalescing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The callback executor (one member on a free port): a user's executor continues the decisions and is never
 * shut down by Sluice; the pool Sluice creates by default is shut down with the limiters.
 */
final class HazelcastCallbackExecutorTest {
    private static HazelcastInstance member;

    @BeforeAll
    static void start() {
        member = Hazelcast.newHazelcastInstance(
                HazelcastCoalescingTest.memberConfig("sluice-callbacks", FreePorts.take(1), 0));
    }

    @AfterAll
    static void stop() {
        if (member != null) {
            member.getLifecycleService().terminate();
        }
    }

    /** An executor that counts the tasks it runs, on threads named {@code user-callback-N}. */
    private static final class CountingExecutor implements Executor {
        final AtomicInteger threads = new AtomicInteger();
        final ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "user-callback-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        final AtomicInteger tasks = new AtomicInteger();

        @Override
        public void execute(Runnable task) {
            pool.execute(() -> {
                tasks.incrementAndGet();
                task.run();
            });
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void create_userExecutor_continuesEveryDecisionOnIt_andIsNeverShutDown(boolean coalescing) throws Exception {
        CountingExecutor user = new CountingExecutor();
        try {
            RateLimiters limiters = HazelcastRateLimiters.create(member, SluiceHazelcast.DEFAULT_MAP_NAME, "sluice",
                    Coalescing.on().withEnabled(coalescing), user);
            RateLimiter limiter = limiters.limiter("callbacks-" + UUID.randomUUID(),
                    LimitSpec.fixedWindow(100, Duration.ofHours(1)));
            List<CompletableFuture<String>> threads = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                CompletableFuture<Lease> lease = limiter.acquireAsync(1);
                threads.add(lease.thenApply(l -> {
                    assertTrue(l.isAcquired());
                    return Thread.currentThread().getName();
                }));
            }
            for (CompletableFuture<String> thread : threads) {
                String name = thread.get(10, TimeUnit.SECONDS);
                assertTrue(name.startsWith("user-callback-") || name.equals(Thread.currentThread().getName()),
                        "an async decision completed on " + name);
            }
            assertTrue(user.tasks.get() >= 20, "every async decision was continued on the user's executor: "
                    + user.tasks.get() + " tasks");
            assertEquals(80, limiter.tryAcquire(0).remaining());
            limiters.close();
            assertFalse(user.pool.isShutdown(), "Sluice shuts down only what it created");
            assertEquals("still running", CompletableFuture.supplyAsync(() -> "still running", user)
                    .get(10, TimeUnit.SECONDS));
        } finally {
            user.pool.shutdownNow();
        }
    }

    @Test
    void store_userExecutor_isTheCallbackExecutor() {
        Executor user = Runnable::run;
        CoalescedStore store = new CoalescedStore(member, SluiceHazelcast.DEFAULT_MAP_NAME,
                Coalescing.on(), user);
        assertSame(user, store.store.callbackExecutor());
        store.close();
    }

    @Test
    void store_default_ownPoolIsShutDownWithTheLimiters() {
        CoalescedStore store = new CoalescedStore(member, SluiceHazelcast.DEFAULT_MAP_NAME,
                Coalescing.on());
        ExecutorService own = (ExecutorService) store.store.callbackExecutor();
        store.limiters().close();
        assertTrue(own.isShutdown());
    }

    @Test
    void create_nullExecutor_throwsNamingIt() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> HazelcastRateLimiters.create(member,
                SluiceHazelcast.DEFAULT_MAP_NAME, "sluice", Coalescing.on(), null));
        assertEquals("callbackExecutor", e.getMessage());
    }
}
