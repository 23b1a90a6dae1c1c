package dev.sluice.test.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.limiter.local.ManualClock;
import dev.sluice.spring.RateLimitExceededException;
import dev.sluice.test.spring.servletapp.ServletApp;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * An application with the local pre-filter's refusal cache: under {@link AutoConfigureSluiceTest} a refused key
 * is let through as soon as the test moves the clock past its retry-after. (The cache keeps a refusal until the
 * machine's monotonic time passes it, an hour here, which the manual clock does not move.)
 */
@SpringBootTest(classes = ServletApp.class, properties = "sluice.prefilter.mode=refusal-cache")
@AutoConfigureSluiceTest
final class PrefilterOffTest {
    @Autowired
    ServletApp.Reports reports;

    @Autowired
    ManualClock clock;

    @Test
    void refusedKey_isAllowedOnceTheClockPassesItsRetryAfter() {
        reports.build("1");
        reports.build("2");
        assertThrows(RateLimitExceededException.class, () -> reports.build("3"));

        clock.advance(Duration.ofHours(1));
        assertEquals("report 4", reports.build("4"));
    }
}
