package dev.sluice.test.spring;

import static dev.sluice.test.SluiceAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.hazelcast.core.DistributedObject;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.spring.RateLimitExceededException;
import dev.sluice.test.spring.hazelcastapp.HazelcastApp;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ApplicationContext;

/**
 * An application configured for Boot's Hazelcast member, under {@link AutoConfigureSluiceTest} without excluding
 * Hazelcast: the member starts (the application may use it for more than Sluice), yet Sluice decides on the kit's
 * store and clock and writes nothing to the member.
 */
@SpringBootTest(classes = HazelcastApp.class, webEnvironment = WebEnvironment.NONE)
@AutoConfigureSluiceTest
final class HazelcastAppTest {
    @Autowired
    HazelcastApp.Reports reports;

    @Autowired
    ManualClock clock;

    @Autowired
    HazelcastInstance hazelcast;

    @Test
    void rateLimitedMethod_decidesOnTheKitsClock_andTheMemberHoldsNoSluiceState(@Autowired ApplicationContext context) {
        reports.build("1");
        reports.build("2");
        RateLimitExceededException refused = assertThrows(RateLimitExceededException.class, () -> reports.build("3"));
        assertThat(refused.lease()).isRefused().hasRetryAfter(Duration.ofHours(1));
        clock.advance(Duration.ofHours(1));
        assertEquals("report 4", reports.build("4"));

        assertEquals(Set.of("sluiceTestRateLimiters"), context.getBeansOfType(RateLimiters.class).keySet());
        assertEquals(List.of(), hazelcast.getDistributedObjects().stream().map(DistributedObject::getName).toList(),
                "Sluice wrote to the application's Hazelcast member");
    }
}
