package dev.sluice.hazelcast;

import dev.sluice.limiter.Coalescing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.spi.merge.MergingValue;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.StepRequest;
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
 * The one seam for Hazelcast's internals, on the Hazelcast this test runs on (the compatibility run puts each
 * supported release here), one member (on a free port) and a client: every internal path resolves and keeps
 * working in use, so a release that silently moves one fails here by name; and with every internal path
 * off, the public API gives the same decisions.
 */
final class HazelcastInternalsTest {
    private static final String CLUSTER = "sluice-internals";
    private static HazelcastInstance member;
    private static HazelcastInstance client;
    private static final ExecutorService POOL = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "internals-test-fallback");
        t.setDaemon(true);
        return t;
    });

    @BeforeAll
    static void start() {
        int[] port = FreePorts.take(1);
        member = Hazelcast.newHazelcastInstance(HazelcastCoalescingTest.memberConfig(CLUSTER, port, 0));
        client = HazelcastClient.newHazelcastClient(HazelcastCoalescingTest.clientConfig(CLUSTER,
                FreePorts.addresses(port).get(0)));
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.shutdown();
        }
        if (member != null) {
            member.getLifecycleService().terminate();
        }
        POOL.shutdownNow();
    }

    private static HazelcastInstance instance(boolean onClient) {
        return onClient ? client : member;
    }

    /** An executor that must not be used: the internal paths continue on Hazelcast's completing thread. */
    private static final Executor NEVER = task -> {
        throw new AssertionError("the internal path continued on the fallback executor");
    };

    @Test
    void everyInternalPath_resolvesOnThisSupportedRelease() {
        String version = HazelcastInternals.localVersion();
        assertTrue(SupportedVersions.isSupported(version), "this test runs on Hazelcast " + version);
        assertEquals(List.of(), HazelcastInternals.fallbacks(), "internal paths that stopped working on Hazelcast "
                + version + " (decisions fall back to public API, slower; merges keep Hazelcast's expiry)");
        assertEquals(6, HazelcastInternals.paths().size(), String.valueOf(HazelcastInternals.paths()));
    }

    @ParameterizedTest(name = "client={0}")
    @ValueSource(booleans = {false, true})
    void submitToKey_internalPath_decidesOnTheCompletingThread_andStaysOn(boolean onClient) throws Exception {
        HazelcastInstance instance = instance(onClient);
        List<Boolean> granted = decide(HazelcastInternals.forInstance(instance), instance, NEVER, 3);
        assertEquals(List.of(true, true, false), granted);
        assertEquals(List.of(), HazelcastInternals.fallbacks());
        assertTrue(HazelcastInternals.forInstance(instance).roundTrip(BatchResult.of(Verdict.of(true, 0, 1, -1, 0, 0))),
                "the local serialization check ran");
    }

    @ParameterizedTest(name = "client={0}")
    @ValueSource(booleans = {false, true})
    void submitToKey_publicOnly_sameDecisions_continuedOnSluicesExecutor(boolean onClient) throws Exception {
        HazelcastInstance instance = instance(onClient);
        AtomicInteger continued = new AtomicInteger();
        Executor counting = task -> {
            continued.incrementAndGet();
            POOL.execute(task);
        };
        List<Boolean> granted = decide(HazelcastInternals.publicOnly(instance), instance, counting, 3);
        assertEquals(List.of(true, true, false), granted);
        assertEquals(3, continued.get(), "each answer continued on the executor given");
    }

    /** The whole sender on the public path: coalesced batches of one key, exact. */
    @ParameterizedTest(name = "client={0}")
    @ValueSource(booleans = {false, true})
    void sender_publicOnly_coalescedDecisions_areExact(boolean onClient) throws Exception {
        HazelcastInstance instance = instance(onClient);
        CoalescedStore sender = new CoalescedStore(new HazelcastDecisionStore(instance, SluiceHazelcast.DEFAULT_MAP_NAME, null,
                HazelcastInternals.publicOnly(instance)), Coalescing.on());
        try {
            LimitSpec spec = LimitSpec.fixedWindow(25, Duration.ofHours(1));
            String key = "internals-sender-" + UUID.randomUUID();
            List<CompletableFuture<Verdict>> all = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                all.add(sender.coalescer.submit(new StepRequest(key, spec, Op.ACQUIRE, 1, 0, Durability.REPLICATED),
                        System.nanoTime() + TimeUnit.SECONDS.toNanos(30)));
            }
            int granted = 0;
            for (CompletableFuture<Verdict> f : all) {
                granted += f.get(30, TimeUnit.SECONDS).granted() ? 1 : 0;
            }
            assertEquals(25, granted);
            assertTrue(sender.coalescer.calls() < 60, "requests were coalesced: " + sender.coalescer.calls() + " hops");
        } finally {
            sender.close();
        }
    }

    /**
     * A merging value of another structure than a map entry: the merge goes on without setting an expiry; its
     * value is read under the running release's name for it.
     */
    @Test
    void setMergeExpiry_notAMapsMergingEntry_isRefused() {
        MergingValue<Object> other = new TestMergingValue(new long[] {1});
        assertFalse(HazelcastInternals.setMergeExpiry(other, 1_000));
        assertEquals(List.of(), HazelcastInternals.fallbacks(), "an unusual value does not switch the path off");
        assertEquals(1, ((long[]) HazelcastInternals.valueOf(other))[0]);
    }

    private static List<Boolean> decide(HazelcastInternals.Calls calls, HazelcastInstance instance, Executor fallback,
            int n) throws Exception {
        IMap<String, long[]> map = instance.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
        String key = "internals-" + UUID.randomUUID();
        LimitSpec spec = LimitSpec.fixedWindow(2, Duration.ofHours(1));
        List<Boolean> granted = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            BatchResult result = calls.submitToKey(map, key,
                    new StepProcessor(new StepRequest(key, spec, Op.ACQUIRE, 1, 0, Durability.REPLICATED)),
                    BatchResult.class, fallback).get(30, TimeUnit.SECONDS);
            granted.add(result.verdict(0).granted());
        }
        return granted;
    }
}
