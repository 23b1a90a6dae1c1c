package example.worker;

import static dev.sluice.test.SluiceAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.limiter.local.ManualClock;
import dev.sluice.spring.RateLimitExceededException;
import dev.sluice.test.spring.AutoConfigureSluiceTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The tenant's mail budget of application.yml, tested in milliseconds: Sluice decides on the test kit's
 * in-process store, on a clock the test moves, instead of the Hazelcast member (which this application has only
 * for Sluice). The scheduled loop waits a day before its first mail, so only the test spends the budget.
 */
@SpringBootTest(properties = {"worker.every-millis=86400000", "spring.main.keep-alive=false"})
@AutoConfigureSluiceTest(excludeAutoConfiguration = HazelcastAutoConfiguration.class)
class LimitsTest {
    @Autowired
    WorkerApp.Mailer mailer;

    @Autowired
    ManualClock clock;

    @Test
    void eleventhMailOfTheHour_isRefused_forThatTenantOnly_untilTheHourHasPassed() {
        for (int i = 0; i < 10; i++) {
            mailer.send("acme");
        }
        RateLimitExceededException refused = assertThrows(RateLimitExceededException.class, () -> mailer.send("acme"));
        assertEquals("outbound-email", refused.policy());
        assertThat(refused.lease()).isRefused().hasRetryAfter(Duration.ofHours(1));
        mailer.send("globex"); // a budget of its own

        clock.advance(Duration.ofHours(1));
        mailer.send("acme");
    }
}
