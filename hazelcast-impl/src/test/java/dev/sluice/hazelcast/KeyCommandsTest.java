package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The launcher's {@code inspect} and {@code reset} against a member on a free port, as an operator runs them. */
final class KeyCommandsTest {

    @Test
    void inspectAndReset_aLockedOutClient_ofARunningCluster() {
        String cluster = "key-commands-" + UUID.randomUUID();
        int[] ports = FreePorts.take(1);
        HazelcastInstance member = Hazelcast.newHazelcastInstance(HazelcastCoalescingTest.memberConfig(cluster, ports, 0));
        Map<String, String> properties = Map.of(SluiceMember.CLUSTER_PROPERTY, cluster,
                SluiceMember.MEMBERS_PROPERTY, FreePorts.addresses(ports).get(0));
        try (RateLimiters limiters = HazelcastRateLimiters.create(member)) {
            PartitionedRateLimiter<String> login = limiters.partitioned("login",
                    LimitSpec.fixedWindow(5, Duration.ofMinutes(15)));
            String partition = "5c1e00aa";
            assertTrue(login.tryAcquire(partition, 5).isAcquired());
            String key = login.keyOf(partition);
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

            KeyState read = KeyCommands.run(new String[] {"inspect", key, "fixed-window", "permit-limit=5",
                    "window=PT15M"}, properties::get, out);
            assertEquals(0, read.remaining());
            assertTrue(read.ownState());
            assertTrue(printed.toString(StandardCharsets.UTF_8).contains("remaining 0 of 5"), printed.toString());

            KeyState partly = KeyCommands.run(new String[] {"reset", key, "fixed-window", "permit-limit=5",
                    "window=PT15M", "remaining=2"}, properties::get, out);
            assertEquals(2, partly.remaining());
            assertEquals(2, login.inspect(partition).remaining());

            assertEquals(5, KeyCommands.run(new String[] {"reset", key, "fixed-window", "permit-limit=5",
                    "window=PT15M"}, properties::get, out).remaining());
            assertTrue(login.tryAcquire(partition, 5).isAcquired());
        } finally {
            member.getLifecycleService().terminate();
        }
    }

    @Test
    void badArguments_areRefusedNamingTheValue() {
        IllegalArgumentException setting = assertThrows(IllegalArgumentException.class, () -> KeyCommands.Command.parse(
                new String[] {"inspect", "sluice/login/ab", "fixed-window", "limit=5"}));
        assertTrue(setting.getMessage().contains("'limit'") && setting.getMessage().contains("permit-limit"),
                setting.getMessage());
        IllegalArgumentException duration = assertThrows(IllegalArgumentException.class, () -> KeyCommands.Command
                .parse(new String[] {"inspect", "sluice/login/ab", "fixed-window", "permit-limit=5", "window=15m"}));
        assertTrue(duration.getMessage().contains("PT15M") && duration.getMessage().contains("'15m'"),
                duration.getMessage());
        IllegalArgumentException key = assertThrows(IllegalArgumentException.class, () -> KeyCommands.Command.parse(
                new String[] {"reset", "login", "fixed-window", "permit-limit=5", "window=PT1M"}));
        assertTrue(key.getMessage().contains("'login'"), key.getMessage());
        assertFalse(KeyCommands.handles(new String[] {"hazelcast.yaml"}));
    }

    @Test
    void calendarWindow_takesItsPeriodZoneAndFirstDayAsText() {
        KeyCommands.Command weekly = KeyCommands.Command.parse(new String[] {"inspect", "sluice/reports/ab",
                "calendar-window", "permit-limit=5", "period=week", "zone=Europe/Paris", "first-day-of-week=sunday"});
        assertEquals(LimitSpec.calendarWindow(5, CalendarPeriod.WEEK, ZoneId.of("Europe/Paris"), DayOfWeek.SUNDAY),
                weekly.spec());
        IllegalArgumentException period = assertThrows(IllegalArgumentException.class, () -> KeyCommands.Command
                .parse(new String[] {"inspect", "sluice/reports/ab", "calendar-window", "permit-limit=5",
                        "period=fortnight"}));
        assertTrue(period.getMessage().contains("fortnight") && period.getMessage().contains("month"),
                period.getMessage());
    }
}
