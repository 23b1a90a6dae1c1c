package dev.sluice.it.kit;

import static dev.sluice.test.SluiceAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.test.SluiceExtension;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The test kit's extension on JUnit 5, the release this module is built with (the kit itself is built with Spring
 * Boot's JUnit 6): a test without Spring gets its store and clock, and the store decides on that clock.
 */
@ExtendWith(SluiceExtension.class)
final class TestKitOnJUnit5Test {
    private RateLimiters limitersOfSetUp;

    @BeforeEach
    void setUp(RateLimiters limiters) {
        limitersOfSetUp = limiters;
    }

    @Test
    void extension_resolvesOneStoreAndItsClock_perTest(RateLimiters limiters, ManualClock clock) {
        assertSame(limitersOfSetUp, limiters);
        RateLimiter login = limiters.limiter("login", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)));
        assertThat(login.tryAcquire(1)).isAcquired();
        assertThat(login.tryAcquire(1)).isRefused().hasRetryAfter(Duration.ofMinutes(1));
        clock.advance(Duration.ofMinutes(1));
        assertThat(login.tryAcquire(1)).isAcquired();
    }
}
