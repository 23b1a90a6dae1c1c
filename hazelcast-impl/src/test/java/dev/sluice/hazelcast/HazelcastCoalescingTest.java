package dev.sluice.hazelcast;

import dev.sluice.limiter.Coalescing;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Coalescing on a real 2-member loopback cluster (free ports) and a client: exact under 32 threads on
 * one hot key and on 1,000 keys, batching really happens (hops < decisions), and the backups hold exactly
 * the primary's states (checked by terminating a member of a second cluster).
 */
final class HazelcastCoalescingTest {
    private static final int THREADS = 32;
    /** The machine is shared and loaded: a generous deadline, so a slow hop is not a failed test. */
    private static final LimiterOptions PATIENT = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(10))
            .build();
    private static final List<HazelcastInstance> members = new ArrayList<>();
    private static HazelcastInstance client;

    /** Member {@code index} of a cluster on {@code ports} (from {@link FreePorts}), joining those before it. */
    static Config memberConfig(String cluster, int[] ports, int index) {
        List<String> started = FreePorts.addresses(java.util.Arrays.copyOf(ports, index + 1));
        Config config = SluiceMember.loopbackConfig(cluster, "127.0.0.1", ports[index], started);
        config.setInstanceName(cluster + "-" + index);
        config.setProperty("hazelcast.partition.count", "71");
        config.setProperty("hazelcast.logging.type", "none");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        return SluiceHazelcast.configure(config);
    }

    /** A client of {@code cluster} at {@code addresses}, with Sluice's serializers. */
    static ClientConfig clientConfig(String cluster, String... addresses) {
        ClientConfig cc = new ClientConfig();
        cc.setClusterName(cluster);
        cc.setProperty("hazelcast.logging.type", "none");
        cc.getNetworkConfig().addAddress(addresses);
        return SluiceHazelcast.configure(cc);
    }

    @BeforeAll
    static void start() {
        int[] ports = FreePorts.take(2);
        for (int i = 0; i < 2; i++) {
            members.add(Hazelcast.newHazelcastInstance(memberConfig("sluice-coalescing", ports, i)));
        }
        client = HazelcastClient.newHazelcastClient(clientConfig("sluice-coalescing",
                FreePorts.addresses(ports).toArray(String[]::new)));
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.shutdown();
        }
        members.forEach(m -> m.getLifecycleService().terminate());
    }

    private static CoalescedStore store(HazelcastInstance hz) {
        return new CoalescedStore(hz, SluiceHazelcast.DEFAULT_MAP_NAME, Coalescing.on());
    }

    /** Runs {@code attempts} tryAcquire(1) calls from 32 threads; returns the grants per index. */
    private static int[] hammer(List<RateLimiter> limiters, int attempts) throws InterruptedException {
        AtomicIntegerArray granted = new AtomicIntegerArray(limiters.size());
        AtomicInteger next = new AtomicInteger();
        List<Throwable> errors = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(() -> {
                try {
                    go.await();
                    while (next.getAndIncrement() < attempts) {
                        int i = ThreadLocalRandom.current().nextInt(limiters.size());
                        if (limiters.get(i).tryAcquire(1).isAcquired()) {
                            granted.incrementAndGet(i);
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
        int[] result = new int[limiters.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = granted.get(i);
        }
        return result;
    }

    private static void hotKeyExactAndBatched(HazelcastInstance hz) throws Exception {
        CoalescedStore store = store(hz);
        try (RateLimiters limiters = store.limiters()) {
            RateLimiter limiter = limiters.limiter("hot-" + UUID.randomUUID(),
                    LimitSpec.slidingLog(100, Duration.ofHours(1)), PATIENT);
            assertEquals(100, hammer(List.of(limiter), 5_000)[0]);
            long hops = store.coalescer.calls();
            long decisions = store.coalescer.decisions();
            assertEquals(5_000, decisions);
            assertTrue(hops < decisions / 2, "32 threads on one key share hops: " + hops + " hops for " + decisions);
        }
    }

    @Test
    void hotKey_32threads_member_exactlyTheLimitInFewerHops() throws Exception {
        hotKeyExactAndBatched(members.get(1));
    }

    @Test
    void hotKey_32threads_client_exactlyTheLimitInFewerHops() throws Exception {
        hotKeyExactAndBatched(client);
    }

    private static void manyKeysExact(HazelcastInstance hz) throws Exception {
        CoalescedStore store = store(hz);
        try (RateLimiters limiters = store.limiters()) {
            String run = UUID.randomUUID().toString();
            List<RateLimiter> keys = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                keys.add(limiters.limiter("many-" + run + "-" + i, LimitSpec.tokenBucket(3, 1, Duration.ofHours(1)),
                        PATIENT));
            }
            int[] granted = hammer(keys, 10_000);
            int total = 0;
            for (int i = 0; i < granted.length; i++) {
                assertTrue(granted[i] <= 3, "key " + i + " granted " + granted[i]);
                total += granted[i];
            }
            for (int i = 0; i < keys.size(); i++) { // what is left is exactly what was not granted
                assertEquals(3 - granted[i], keys.get(i).tryAcquire(0).remaining(), "key " + i);
            }
            assertTrue(total > 1_000, "granted " + total);
            assertTrue(store.coalescer.calls() < store.coalescer.decisions(),
                    store.coalescer.calls() + " hops for " + store.coalescer.decisions());
        }
    }

    @Test
    void thousandKeys_32threads_member_eachExactlyItsLimit() throws Exception {
        manyKeysExact(members.get(0));
    }

    @Test
    void thousandKeys_32threads_client_eachExactlyItsLimit() throws Exception {
        manyKeysExact(client);
    }

    /** Coalescing off is a batch of one: under 32 threads on one key every decision is its own hop, none queued. */
    @Test
    void disabled_oneHopPerDecision_nothingQueued() throws Exception {
        CoalescedStore store = new CoalescedStore(members.get(0), SluiceHazelcast.DEFAULT_MAP_NAME,
                Coalescing.disabled());
        try (RateLimiters limiters = store.limiters()) {
            RateLimiter limiter = limiters.limiter("off-" + UUID.randomUUID(),
                    LimitSpec.slidingLog(100, Duration.ofHours(1)), PATIENT);
            assertEquals(100, hammer(List.of(limiter), 1_000)[0]);
            assertEquals(1_000, store.coalescer.decisions());
            assertEquals(1_000, store.coalescer.calls(), "one hop per decision");
            assertEquals(0, store.coalescer.stalls() + store.coalescer.queued());
        }
    }

    /**
     * The backups are the primary's exact states: after a coalesced run over 30 keys, the surviving
     * member (promoted backups for the half the other owned) holds the very same states.
     */
    @Test
    void backups_afterOwnerLoss_holdThePrimarysStates() throws Exception {
        int[] ports = FreePorts.take(2);
        HazelcastInstance a = Hazelcast.newHazelcastInstance(memberConfig("sluice-coalescing-backup", ports, 0));
        HazelcastInstance b = Hazelcast.newHazelcastInstance(memberConfig("sluice-coalescing-backup", ports, 1));
        try {
            CoalescedStore store = store(a);
            List<String> names = new ArrayList<>();
            try (RateLimiters limiters = store.limiters()) {
                List<RateLimiter> keys = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    names.add("backup-" + i);
                    keys.add(limiters.limiter("backup-" + i, LimitSpec.slidingLog(50, Duration.ofHours(1)), PATIENT));
                }
                assertEquals(30 * 50, IntStream.of(hammer(keys, 3_000)).sum());
                assertTrue(store.coalescer.calls() < store.coalescer.decisions());
            }
            // The second member joined just before: its partitions may still be migrating, and their backups be
            // copied. Only a cluster whose every replica is in sync promises to lose nothing with a member.
            awaitClusterSafe(a);
            IMap<String, long[]> map = a.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            Map<String, long[]> before = new HashMap<>();
            for (String name : names) {
                before.put(name, map.get("sluice/" + name));
            }
            a.getLifecycleService().terminate();
            IMap<String, long[]> survivor = b.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            for (String name : names) {
                assertArrayEquals(before.get(name), survivor.get("sluice/" + name), name);
            }
        } finally {
            a.getLifecycleService().terminate();
            b.getLifecycleService().terminate();
        }
    }

    /** Until every partition's backups are in place and in sync, as a cluster is between joins and departures. */
    static void awaitClusterSafe(HazelcastInstance member) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!member.getPartitionService().isClusterSafe()) {
            assertTrue(System.nanoTime() < deadline, "the cluster did not become safe within 60 s");
            Thread.sleep(20);
        }
    }
}
