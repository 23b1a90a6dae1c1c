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
import dev.sluice.limiter.store.StepRequest;
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
                backedUp.add(writeAndCheck(replicated, owner, "single", spec + ", one step",
                        key -> replicated.executeOnKey(key, new StepProcessor(request(key, spec)))));
                backedUp.add(writeAndCheck(replicated, owner, "batch", spec + ", batch",
                        key -> replicated.submitToKey(key, new StepProcessor(List.of(request(key, spec),
                                request(key, spec)))).toCompletableFuture().join()));
                writeAndCheck(ephemeral, owner, "ephemeral", spec + ", ephemeral",
                        key -> ephemeral.executeOnKey(key, new StepProcessor(request(key, spec))));
            }
            owner.getLifecycleService().terminate(); // the backups take over: what they wrote is read now
            IMap<String, long[]> survivor = other.getMap(SluiceHazelcast.DEFAULT_MAP_NAME);
            for (String key : backedUp) {
                EntryView<String, long[]> view = survivor.getEntryView(key);
                if (view != null) { // a state of the shortest windows may have ended meanwhile
                    assertOutlives(view, key + " on the promoted backup");
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

    /**
     * Writes a new key of {@code owner} and checks that its entry outlives its state. The entry is kept at least
     * {@link SetStateProcessor#EXPIRY_SLACK_MILLIS} less a second (Hazelcast's rounding) longer than its state, so an
     * entry found gone is a failure only when it was looked for within that margin: a write and a read further apart
     * (a machine that stalled this test) prove nothing, and the case runs again on a new key.
     */
    private static String writeAndCheck(IMap<String, long[]> map, HazelcastInstance owner, String what,
            String description, java.util.function.Consumer<String> write) {
        long margin = SetStateProcessor.EXPIRY_SLACK_MILLIS - 1_000;
        for (int attempt = 0; ; attempt++) {
            String key = ownedBy(owner, what);
            long start = System.nanoTime();
            write.accept(key);
            EntryView<String, long[]> view = map.getEntryView(key);
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            if (view != null || tookMillis < margin || attempt == 20) {
                assertOutlives(view, description + " (written and read in " + tookMillis + " ms)");
                return key;
            }
        }
    }

    private static void assertOutlives(EntryView<String, long[]> view, String what) {
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
