package dev.sluice.hazelcast;

import dev.sluice.limiter.Coalescing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.algorithm.Algorithms;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression: a step's usage error, here a key holding another algorithm's state, was thrown
 * inside the entry processor, so the member logged a WARNING with its stack trace for every such request
 * although the caller already gets it as an {@link IllegalStateException}. The caller must still get the
 * very same exception type and message; the members (on free ports, logging through
 * {@code java.util.logging}) must log nothing about it. Embedded callers on a key the other member owns and
 * on one they own, and a client; coalescing on and off.
 */
final class HazelcastQuietRefusalTest {
    private static final int[] PORTS = FreePorts.take(2);
    private static final LimitSpec TOKENS = LimitSpec.tokenBucket(5, 1, Duration.ofHours(1));
    private static final LimitSpec GCRA = LimitSpec.gcra(5, Duration.ofHours(1), 2);
    private static final List<HazelcastInstance> members = new ArrayList<>();
    private static final Recorder RECORDER = new Recorder();
    private static HazelcastInstance client;

    /** Every log record the members' {@code java.util.logging} loggers publish. */
    static final class Recorder extends Handler {
        final List<LogRecord> records = new ArrayList<>();

        @Override
        public synchronized void publish(LogRecord record) {
            records.add(record);
        }

        synchronized void clear() {
            records.clear();
        }

        synchronized List<LogRecord> mentioning(String text) {
            List<LogRecord> found = new ArrayList<>();
            for (LogRecord r : records) {
                boolean mentions = String.valueOf(r.getMessage()).contains(text);
                for (Throwable t = r.getThrown(); t != null && !mentions; t = t.getCause() == t ? null : t.getCause()) {
                    mentions = String.valueOf(t.getMessage()).contains(text);
                }
                if (mentions) {
                    found.add(r);
                }
            }
            return found;
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }

    @BeforeAll
    static void start() {
        Logger.getLogger("").addHandler(RECORDER);
        for (int i = 0; i < 2; i++) {
            Config config = HazelcastCoalescingTest.memberConfig("sluice-quiet", PORTS, i);
            config.setProperty("hazelcast.logging.type", "jdk");
            members.add(Hazelcast.newHazelcastInstance(config));
        }
        ClientConfig cc = new ClientConfig();
        cc.setClusterName("sluice-quiet");
        cc.setProperty("hazelcast.logging.type", "none");
        cc.getNetworkConfig().setAddresses(FreePorts.addresses(PORTS));
        client = HazelcastClient.newHazelcastClient(SluiceHazelcast.configure(cc));
    }

    @AfterAll
    static void stop() {
        Logger.getLogger("").removeHandler(RECORDER);
        if (client != null) {
            client.shutdown();
        }
        members.forEach(m -> m.getLifecycleService().terminate());
    }

    /** A limiter name whose key the first member owns ({@code local}) or does not. */
    private static String name(boolean ownedByFirst) {
        while (true) {
            String name = "quiet-" + UUID.randomUUID();
            boolean local = members.get(0).getPartitionService().getPartition("sluice/" + name).getOwner().localMember();
            if (local == ownedByFirst) {
                return name;
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"member-remote", "member-local", "client", "member-remote-coalescing",
            "member-local-coalescing", "client-coalescing"})
    void tryAcquire_keyHoldsAnotherAlgorithmsState_callerGetsTheStepsException_memberLogsNothing(String setup)
            throws Exception {
        HazelcastInstance caller = setup.startsWith("client") ? client : members.get(0);
        Coalescing coalescing = setup.endsWith("coalescing") ? Coalescing.on()
                : Coalescing.disabled();
        String name = name(setup.startsWith("member-local"));
        String key = "sluice/" + name;
        RECORDER.clear();
        try (RateLimiters limiters = HazelcastRateLimiters.create(caller, coalescing)) {
            assertTrue(limiters.limiter(name, TOKENS).tryAcquire(1).isAcquired());
            long[] stored = SluiceHazelcast.stateOf(
                    members.get(0).<String, long[]>getMap(SluiceHazelcast.DEFAULT_MAP_NAME).get(key));
            String stepMessage = assertThrows(IllegalStateException.class,
                    () -> Algorithms.acquire(GCRA, stored, System.currentTimeMillis(), 1)).getMessage();
            String expected = "limiter '" + name + "' (key '" + key + "'): " + stepMessage;

            RateLimiter other = limiters.limiter(name, GCRA);
            for (int i = 0; i < 3; i++) {
                IllegalStateException e = assertThrows(IllegalStateException.class, () -> other.tryAcquire(1));
                assertEquals(IllegalStateException.class, e.getClass());
                assertEquals(expected, e.getMessage());
                ExecutionException async = assertThrows(ExecutionException.class,
                        () -> other.acquireAsync(1).get(10, TimeUnit.SECONDS));
                assertEquals(IllegalStateException.class, async.getCause().getClass());
                assertEquals(expected, async.getCause().getMessage());
            }
            assertEquals(4, limiters.limiter(name, TOKENS).tryAcquire(0).remaining(), "the original state is intact");
        }
        // The recorder does hear the members: a line logged through a member's own logging service arrives.
        String marker = "quiet-refusal-test-marker-" + UUID.randomUUID();
        members.get(1).getLoggingService().getLogger(HazelcastQuietRefusalTest.class).warning(marker);
        assertEquals(1, RECORDER.mentioning(marker).size(), "the members log through java.util.logging");
        List<LogRecord> logged = RECORDER.mentioning(key);
        logged.addAll(RECORDER.mentioning("token-bucket state"));
        assertTrue(logged.isEmpty(), "the members logged the refusal: " + describe(logged));
    }

    private static String describe(List<LogRecord> records) {
        StringBuilder s = new StringBuilder();
        for (LogRecord r : records) {
            s.append('\n').append(r.getLevel()).append(' ').append(r.getLoggerName()).append(": ").append(r.getMessage());
        }
        return s.toString();
    }
}
