package dev.sluice.limiter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

final class LeaseTest {

    @Test
    void granted_holdsItsValues_andHasNoRetryAfter() {
        Lease lease = Lease.granted(7, 10, Duration.ofMillis(300));
        assertTrue(lease.isAcquired());
        assertEquals(7, lease.remaining());
        assertEquals(10, lease.limit());
        assertEquals(Duration.ofMillis(300), lease.resetAfter());
        assertTrue(lease.retryAfter().isEmpty());
        assertFalse(lease.isDegraded());
        assertTrue(lease.fencingToken().isEmpty());
        lease.close();
        lease.close();
    }

    @Test
    void refused_holdsItsRetryAfter() {
        Lease lease = Lease.refused(0, 10, Optional.of(Duration.ofMillis(250)), Duration.ofSeconds(1));
        assertFalse(lease.isAcquired());
        assertEquals(Optional.of(Duration.ofMillis(250)), lease.retryAfter());
        assertEquals(Duration.ofSeconds(1), lease.resetAfter());
        assertFalse(lease.isDegraded());
        assertEquals("Lease[refused, remaining=0, limit=10, retryAfter=PT0.25S]", lease.toString());
    }

    @Test
    void refused_withoutRetryAfter_hasNone() {
        assertTrue(Lease.refused(0, 3, Optional.empty(), Duration.ZERO).retryAfter().isEmpty());
    }

    @Test
    void degraded_knowsNothingOfTheStore() {
        Lease lease = Lease.degraded(true, 10);
        assertTrue(lease.isAcquired());
        assertTrue(lease.isDegraded());
        assertEquals(0, lease.remaining());
        assertEquals(10, lease.limit());
        assertEquals(Duration.ZERO, lease.resetAfter());
        assertTrue(lease.retryAfter().isEmpty());
        assertEquals("Lease[granted, degraded, remaining=0, limit=10]", lease.toString());
    }

    @Test
    void values_withTheSameFields_areEqual() {
        assertEquals(Lease.granted(1, 2, Duration.ofMillis(3)), Lease.granted(1, 2, Duration.ofMillis(3)));
        assertEquals(Lease.granted(1, 2, Duration.ofMillis(3)).hashCode(),
                Lease.granted(1, 2, Duration.ofMillis(3)).hashCode());
    }

    @Test
    void resetAfter_negative_throws() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Lease.granted(1, 2, Duration.ofMillis(-1)));
        assertEquals("resetAfter must not be negative, was PT-0.001S", e.getMessage());
    }

    @Test
    void retryAfter_negative_throws() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Lease.refused(0, 2, Optional.of(Duration.ofMillis(-5)), Duration.ZERO));
        assertEquals("retryAfter must not be negative, was PT-0.005S", e.getMessage());
    }

    @Test
    void nulls_throwNullPointerException() {
        assertThrows(NullPointerException.class, () -> Lease.granted(1, 2, null));
        assertThrows(NullPointerException.class, () -> Lease.refused(0, 2, null, Duration.ZERO));
        assertThrows(NullPointerException.class, () -> Lease.refused(0, 2, Optional.empty(), null));
    }
}
