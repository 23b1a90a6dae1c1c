package dev.sluice.test;

import static dev.sluice.test.SluiceAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The lease assertions on real decisions of the in-process store, and what their failures say. */
@ExtendWith(SluiceExtension.class)
final class LeaseAssertTest {

    @Test
    void failures_sayWhatTheLeaseSaid(RateLimiters limiters, ManualClock clock) {
        RateLimiter one = limiters.limiter("one", LimitSpec.tokenBucket(1, 1, Duration.ofSeconds(10)));
        Lease granted = one.tryAcquire(1);
        Lease refused = one.tryAcquire(1);

        assertEquals("Expected the lease to be refused, but it was acquired (0 remaining)",
                assertThrows(AssertionError.class, () -> assertThat(granted).isRefused()).getMessage());
        assertEquals("Expected the lease to be acquired, but it was refused (retry after PT10S)",
                assertThrows(AssertionError.class, () -> assertThat(refused).isAcquired()).getMessage());
        assertEquals("Expected the lease to have 3 remaining, but it had 0",
                assertThrows(AssertionError.class, () -> assertThat(granted).hasRemaining(3)).getMessage());
        assertEquals("Expected the lease to have retry-after PT5S, but it had PT10S",
                assertThrows(AssertionError.class, () -> assertThat(refused).hasRetryAfter(Duration.ofSeconds(5)))
                        .getMessage());
        assertEquals("Expected the lease to have retry-after PT5S, but it had none",
                assertThrows(AssertionError.class, () -> assertThat(granted).hasRetryAfter(Duration.ofSeconds(5)))
                        .getMessage());

        clock.advance(Duration.ofSeconds(4));
        assertThat(one.tryAcquire(1)).isRefused().hasRetryAfter(Duration.ofSeconds(6));
    }
}
