package dev.sluice.hazelcast;

import dev.sluice.limiter.Coalescing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The stall escape is a fairness matter, never a safety one. With {@code stallMillis = 0} every arrival
 * behind a busy hop goes as an extra hop, so one hot key has many hops in flight at once, which the owner
 * may run in another order than they were sent. Each step is still atomic on the owner, so a limit of N
 * grants exactly N, and every grant was decided on its own state (the grants' {@code remaining} values
 * are N-1 down to 0, each exactly once). A 2-member loopback cluster (on free ports) and a client.
 */
final class HazelcastCoalescingStallTest {
    private static final int THREADS = 16;
    private static final int ATTEMPTS = 4_000;
    private static final int LIMIT = 300;
    private static final LimiterOptions PATIENT = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10))
            .build();
    private static final List<HazelcastInstance> members = new ArrayList<>();
    private static HazelcastInstance client;

    @BeforeAll
    static void start() {
        int[] ports = FreePorts.take(2);
        for (int i = 0; i < 2; i++) {
            members.add(Hazelcast.newHazelcastInstance(
                    HazelcastCoalescingTest.memberConfig("sluice-coalescing-stall", ports, i)));
        }
        ClientConfig cc = new ClientConfig();
        cc.setClusterName("sluice-coalescing-stall");
        cc.setProperty("hazelcast.logging.type", "none");
        cc.getNetworkConfig().setAddresses(FreePorts.addresses(ports));
        client = HazelcastClient.newHazelcastClient(SluiceHazelcast.configure(cc));
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.shutdown();
        }
        members.forEach(m -> m.getLifecycleService().terminate());
    }

    /** Every arrival behind a busy hop stalls at once: {@code stallMillis} 0. */
    private static CoalescedStore alwaysStalling(HazelcastInstance hz) {
        return new CoalescedStore(hz, SluiceHazelcast.DEFAULT_MAP_NAME,
                new Coalescing(true, 128, 32 * 1024, 10_000, 0));
    }

    private static void hotKeyExact(HazelcastInstance hz, LimitSpec spec) throws Exception {
        CoalescedStore store = alwaysStalling(hz);
        try (RateLimiters limiters = store.limiters()) {
            RateLimiter limiter = limiters.limiter("stall-" + UUID.randomUUID(), spec, PATIENT);
            // remainingSeen[r]: how many grants reported r permits left.
            AtomicInteger[] remainingSeen = new AtomicInteger[LIMIT];
            for (int i = 0; i < LIMIT; i++) {
                remainingSeen[i] = new AtomicInteger();
            }
            AtomicInteger granted = new AtomicInteger();
            AtomicInteger next = new AtomicInteger();
            List<Throwable> errors = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                boolean async = t % 2 == 1; // half wait in the calling thread, half through acquireAsync
                Thread thread = new Thread(() -> {
                    try {
                        go.await();
                        while (next.getAndIncrement() < ATTEMPTS) {
                            Lease lease = async ? limiter.acquireAsync(1).get(30, TimeUnit.SECONDS)
                                    : limiter.tryAcquire(1);
                            assertTrue(!lease.isDegraded(), "every decision came from the owner");
                            if (lease.isAcquired()) {
                                granted.incrementAndGet();
                                remainingSeen[(int) lease.remaining()].incrementAndGet();
                            }
                        }
                    } catch (Throwable e) {
                        synchronized (errors) {
                            errors.add(e);
                        }
                    }
                });
                thread.start();
                threads.add(thread);
            }
            go.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            if (!errors.isEmpty()) {
                throw new AssertionError("a caller failed", errors.get(0));
            }
            assertEquals(LIMIT, granted.get(), spec + ": exactly the limit");
            for (int r = 0; r < LIMIT; r++) {
                assertEquals(1, remainingSeen[r].get(), spec + ": grants that saw " + r + " left");
            }
            assertEquals(0, limiter.tryAcquire(0).remaining());
            assertTrue(store.coalescer.stalls() > 0, "extra hops were in flight at once");
        }
    }

    @Test
    void hotKey_everyArrivalStalls_member_grantsExactlyTheLimitEachOnItsOwnState() throws Exception {
        hotKeyExact(members.get(0), LimitSpec.fixedWindow(LIMIT, Duration.ofHours(1)));
    }

    @Test
    void hotKey_everyArrivalStalls_client_grantsExactlyTheLimitEachOnItsOwnState() throws Exception {
        hotKeyExact(client, LimitSpec.slidingLog(LIMIT, Duration.ofHours(1)));
    }
}
