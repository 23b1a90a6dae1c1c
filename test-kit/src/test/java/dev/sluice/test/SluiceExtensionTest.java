package dev.sluice.test;

import static dev.sluice.test.SluiceAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SluiceExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
final class SluiceExtensionTest {
    private static final LimitSpec FIVE_A_MINUTE = LimitSpec.fixedWindow(5, Duration.ofMinutes(1));
    /** The previous test's store and clock, to show the next test gets others and the old store was closed. */
    private static RateLimiters previousLimiters;
    private static ManualClock previousClock;

    private RateLimiters limitersOfSetUp;
    private ManualClock clockOfSetUp;

    @BeforeEach
    void setUp(RateLimiters limiters, ManualClock clock) {
        limitersOfSetUp = limiters;
        clockOfSetUp = clock;
    }

    @AfterEach
    void tearDown(RateLimiters limiters) {
        previousLimiters = limiters;
        previousClock = clockOfSetUp;
    }

    @Test
    @Order(1)
    void sixthAttempt_isRefused_untilTheClockMovesAWindowOn(RateLimiters limiters, ManualClock clock) {
        RateLimiter login = limiters.limiter("login", FIVE_A_MINUTE);
        for (int i = 0; i < 5; i++) {
            assertThat(login.tryAcquire(1)).isAcquired().hasRemaining(4 - i);
        }
        assertThat(login.tryAcquire(1)).isRefused().hasRetryAfter(Duration.ofMinutes(1));

        clock.advance(Duration.ofSeconds(59));
        assertThat(login.tryAcquire(1)).isRefused().hasRetryAfter(Duration.ofSeconds(1));
        clock.advance(Duration.ofSeconds(1));
        assertThat(login.tryAcquire(1)).isAcquired();
    }

    /** Exhausts the same key as the test before: with a store shared between tests its first attempt is refused. */
    @Test
    @Order(2)
    void eachTest_getsAnEmptyStoreAndAClockAtTheStart(RateLimiters limiters, ManualClock clock) {
        assertNotSame(previousLimiters, limiters);
        assertNotSame(previousClock, clock);
        assertEquals(new ManualClock().instant(), clock.instant(), "the clock is at its start");
        RateLimiter login = limiters.limiter("login", FIVE_A_MINUTE);
        for (int i = 0; i < 5; i++) {
            assertThat(login.tryAcquire(1)).isAcquired();
        }
        assertThat(login.tryAcquire(1)).isRefused();
    }

    @Test
    @Order(3)
    void setUpAndTest_shareOneStoreAndClock_andThePreviousStoreWasClosed(RateLimiters limiters, ManualClock clock) {
        assertSame(limitersOfSetUp, limiters);
        assertSame(clockOfSetUp, clock);
        assertThrows(IllegalStateException.class, () -> previousLimiters.limiter("login", FIVE_A_MINUTE).tryAcquire(1),
                "the previous test's store was closed after it");
    }
}
