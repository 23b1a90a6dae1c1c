package dev.sluice.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

final class DemoSettingsTest {

    @Test
    void new_sameHazelcastPorts_throwsNamingBoth() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DemoSettings("c", "127.0.0.1", 0, 0, 5701, 5701, false));
        assertTrue(e.getMessage().contains("hazelcast-a and hazelcast-b must differ"), e.getMessage());
    }

    @Test
    void new_sameHttpPorts_throws() {
        assertThrows(IllegalArgumentException.class, () -> new DemoSettings("c", "127.0.0.1", 8081, 8081, 1, 2, false));
    }

    @Test
    void new_httpPortOutOfRange_throwsNamingTheProperty() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DemoSettings("c", "127.0.0.1", 70_000, 0, 1, 2, false));
        assertEquals("sluice.demo.http-a must be between 0 and 65535, was 70000", e.getMessage());
    }

    @Test
    void new_hazelcastPortZero_throws() {
        assertThrows(IllegalArgumentException.class, () -> new DemoSettings("c", "127.0.0.1", 0, 0, 0, 2, false));
    }

    @Test
    void fromSystemProperties_tourOnlyArgument_setsTourOnly() {
        assertTrue(DemoSettings.fromSystemProperties(new String[] {"--tour-only"}).tourOnly());
    }

    @Test
    void fromSystemProperties_unknownArgument_throws() {
        assertThrows(IllegalArgumentException.class, () -> DemoSettings.fromSystemProperties(new String[] {"--tour"}));
    }
}
