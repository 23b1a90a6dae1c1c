package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hazelcast.config.Config;
import com.hazelcast.core.EntryView;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.store.StepRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A measurement, not a check (runs only with {@code -Dsluice.expiryMemory.keys=N}): heap per idle key on one member
 * (owned entries only), each key decided once through {@link StepProcessor} (token bucket, an hour to refill), with
 * the sweep (no per-entry TTL) and without it (a member whose cluster has a member that does not sweep writes TTLs, as
 * before). Same JVM, same code, free ports; the heap's growth after full GCs divided by the keys.
 *
 * <pre>{@code
 * mvn -B -q -o -pl hazelcast-impl -am verify -Dtest=ExpiryMemoryTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dsluice.expiryMemory.keys=100000 -Dmaven.javadoc.skip=true -Dmaven.source.skip=true \
 *     -Dsluice.security-tests=none -Dsluice.alone-tests=none
 * }</pre>
 */
@EnabledIfSystemProperty(named = "sluice.expiryMemory.keys", matches = "\\d+")
final class ExpiryMemoryTest {
    private static final int PRIMING = 1_000;

    @Test
    void heapPerIdleKey_withAndWithoutTheSweep() throws Exception {
        int n = Integer.getInteger("sluice.expiryMemory.keys");
        for (int run = 0; run < 2; run++) {
            for (boolean sweep : new boolean[] {false, true}) {
                System.out.printf("heap per idle key, %,d keys, %s: %.0f bytes%n", n,
                        sweep ? "no TTL (sweep)" : "per-entry TTL", measure(n, sweep));
            }
        }
    }

    private static double measure(int n, boolean sweep) throws Exception {
        int[] port = FreePorts.take(1);
        Config config = HazelcastCoalescingTest.memberConfig("expiry-memory-" + sweep, port, 0);
        config.setProperty("hazelcast.partition.count", "271");
        config.setProperty(ExpirySweep.PERIOD_PROPERTY, "1000");
        if (!sweep) {
            config.getMemberAttributeConfig().removeAttribute(ExpirySweep.ATTRIBUTE);
        }
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        try {
            ExpirySweep.Registry registry = ExpirySweep.registry(member.getUserContext());
            while (registry.active != sweep) {
                Thread.sleep(10);
            }
            IMap<String, long[]> map = member.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            LimitSpec spec = LimitSpec.tokenBucket(1_000_000_000L, 1, Duration.ofHours(1));
            fill(map, spec, 0, PRIMING);
            long before = usedHeapAfterGc();
            fill(map, spec, PRIMING, n);
            long after = usedHeapAfterGc();
            assertEquals(n, map.size());
            EntryView<String, long[]> view = map.getEntryView(key(5));
            assertEquals(sweep, view.getExpirationTime() == Long.MAX_VALUE, view.toString());
            return (after - before) / (double) (n - PRIMING);
        } finally {
            member.getLifecycleService().terminate();
        }
    }

    private static String key(int i) {
        return Keys.partitionKey("sluice", "idle", "client-" + i);
    }

    private static void fill(IMap<String, long[]> map, LimitSpec spec, int from, int to) {
        List<CompletableFuture<BatchResult>> window = new ArrayList<>();
        for (int i = from; i < to; i++) {
            String key = key(i);
            window.add(map.submitToKey(key, new StepProcessor(SluiceHazelcast.DEFAULT_MAP_NAME,
                    new StepRequest(key, spec, Op.ACQUIRE, 1, 0, Durability.REPLICATED))).toCompletableFuture());
            if (window.size() == 256 || i == to - 1) {
                window.forEach(CompletableFuture::join);
                window.clear();
            }
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        Runtime runtime = Runtime.getRuntime();
        return runtime.totalMemory() - runtime.freeMemory();
    }
}
