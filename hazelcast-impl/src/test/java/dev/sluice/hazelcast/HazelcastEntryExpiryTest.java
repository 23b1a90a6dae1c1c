package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.EntryView;
import com.hazelcast.map.IMap;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.spi.StepRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Regression: Hazelcast keeps an entry's expiration in whole seconds, rounded down, so a state written with its
 * own TTL could be gone before it stopped mattering (at once, when its expiry fell within the current second),
 * and a 100 ms fixed window on the real clock admitted 15 times its limit. On real members with the real clock,
 * every write path must leave the entry alive at least until the state's own expiry: the single step, the batch,
 * the ephemeral map, and the backup that takes over when the owner dies.
 */
final class HazelcastEntryExpiryTest {
    private static final int[] PORTS = FreePorts.take(2);
    private static final List<LimitSpec> SHORT = List.of(
            LimitSpec.fixedWindow(5, Duration.ofMillis(100)),
            LimitSpec.slidingWindow(5, Duration.ofMillis(300), 3),
            LimitSpec.slidingLog(5, Duration.ofMillis(220)),
            LimitSpec.slidingCounter(5, Duration.ofMillis(130)),
            LimitSpec.tokenBucket(5, 1, Duration.ofMillis(70)),
            LimitSpec.gcra(10, Duration.ofSeconds(1), 3),
            LimitSpec.concurrency(5, Duration.ofMillis(350)));

    private static Config memberConfig(int index) {
        List<String> started = FreePorts.addresses(java.util.Arrays.copyOf(PORTS, index + 1));
        Config config = SluiceMember.loopbackConfig("sluice-expiry", "127.0.0.1", PORTS[index], started);
        config.setInstanceName("sluice-expiry-" + index);
        config.setProperty("hazelcast.partition.count", "71");
        config.setProperty("hazelcast.logging.type", "none");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        return SluiceHazelcast.configure(config);
    }

    @Test
    void write_shortWindowsOnEveryPath_entryOutlivesItsState() {
        HazelcastInstance owner = Hazelcast.newHazelcastInstance(memberConfig(0));
        HazelcastInstance other = Hazelcast.newHazelcastInstance(memberConfig(1));
        try {
            IMap<String, long[]> replicated = owner.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            IMap<String, long[]> ephemeral = owner.getMap(SluiceHazelcast.ephemeralMapName(SluiceHazelcast.DEFAULT_MAP_NAME));
            List<String> backedUp = new ArrayList<>();
            for (LimitSpec spec : SHORT) {
                String single = ownedBy(owner, "single");
                replicated.executeOnKey(single, new StepProcessor(request(single, spec)));
                assertOutlives(replicated, single, spec + ", one step");
                backedUp.add(single);

                String batch = ownedBy(owner, "batch");
                replicated.submitToKey(batch, new StepProcessor(List.of(request(batch, spec), request(batch, spec))))
                        .toCompletableFuture().join();
                assertOutlives(replicated, batch, spec + ", batch");
                backedUp.add(batch);

                String alone = ownedBy(owner, "ephemeral");
                ephemeral.executeOnKey(alone, new StepProcessor(request(alone, spec)));
                assertOutlives(ephemeral, alone, spec + ", ephemeral");
            }
            owner.getLifecycleService().terminate(); // the backups take over: what they wrote is read now
            IMap<String, long[]> survivor = other.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            for (String key : backedUp) {
                if (survivor.containsKey(key)) { // a state of the shortest windows may have ended meanwhile
                    assertOutlives(survivor, key, key + " on the promoted backup");
                }
            }
        } finally {
            owner.getLifecycleService().terminate();
            other.getLifecycleService().terminate();
        }
    }

    private static StepRequest request(String key, LimitSpec spec) {
        return new StepRequest(key, spec, Op.ACQUIRE, 1, 7, Durability.REPLICATED);
    }

    private static void assertOutlives(IMap<String, long[]> map, String key, String what) {
        EntryView<String, long[]> view = map.getEntryView(key);
        assertNotNull(view, "the entry was gone at once: " + what);
        long stateExpiry = Algorithms.expiresAt(SluiceHazelcast.stateOf(view.getValue()));
        assertTrue(view.getExpirationTime() > stateExpiry, what + ": the entry expires at " + view.getExpirationTime()
                + ", before its state stops mattering at " + stateExpiry);
    }

    private static String ownedBy(HazelcastInstance member, String what) {
        while (true) {
            String key = what + "-" + UUID.randomUUID();
            if (member.getPartitionService().getPartition(key).getOwner().localMember()) {
                return key;
            }
        }
    }
}
