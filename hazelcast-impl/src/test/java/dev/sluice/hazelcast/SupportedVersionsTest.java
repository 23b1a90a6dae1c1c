package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The supported range of Hazelcast releases, and the refusal of any other, naming it. */
final class SupportedVersionsTest {
    @Test
    void isSupported_fiveThreeToFiveSeven() {
        for (String v : new String[] {"5.3.0", "5.3.8", "5.4.0", "5.5.0", "5.6.0", "5.7.0", "5.7.1-SNAPSHOT"}) {
            assertTrue(SupportedVersions.isSupported(v), v);
        }
        for (String v : new String[] {"4.2.8", "5.0.5", "5.2.5", "5.8.0", "6.0.0"}) {
            assertFalse(SupportedVersions.isSupported(v), v);
        }
    }

    @Test
    void isSupported_unreadableVersion_isNotHeldAgainstIt() {
        assertTrue(SupportedVersions.isSupported((String) null));
        assertTrue(SupportedVersions.isSupported("custom"));
    }

    @Test
    void check_unsupported_failsNamingTheVersionAndTheRange() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> SupportedVersions.check("member 127.0.0.1:5701", "5.2.5"));
        assertEquals("Sluice supports Hazelcast 5.3 to 5.7, but member 127.0.0.1:5701 runs Hazelcast 5.2.5; run a"
                + " supported Hazelcast, or set -D" + SupportedVersions.ALLOW_PROPERTY + "=true to try it anyway",
                e.getMessage());
    }

    @Test
    void checkLocal_thisRelease_passes() {
        SupportedVersions.checkLocal(false);
    }
}
