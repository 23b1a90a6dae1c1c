package example.mvc;

import static dev.sluice.test.SluiceAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.test.spring.AutoConfigureSluiceTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

/**
 * The limits of application.yml, tested in milliseconds: Sluice decides on the test kit's in-process store, on a
 * clock the test moves, instead of the Hazelcast member, which this application has only for Sluice and so
 * leaves out here. Each test starts with full budgets and the clock at its start.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureSluiceTest(excludeAutoConfiguration = HazelcastAutoConfiguration.class)
class LimitsTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @LocalServerPort
    int port;

    @Autowired
    ManualClock clock;

    private HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void api_answers429AfterTenRequestsInAMinute_andAgain200AMinuteLater() throws Exception {
        for (int i = 0; i < 10; i++) {
            assertThat(get("/api/hello")).isAllowed().hasRemaining(9 - i);
        }
        assertThat(get("/api/hello")).isRateLimited().hasRetryAfter(Duration.ofMinutes(1));

        clock.advance(Duration.ofMinutes(1));
        assertThat(get("/api/hello")).isAllowed().hasRemaining(9);
    }

    @Test
    void reports_answer429AfterThreeInAnHour_andAgain200AnHourAfterTheFirst() throws Exception {
        assertThat(get("/reports/1")).isAllowed();
        clock.advance(Duration.ofMinutes(20));
        assertThat(get("/reports/2")).isAllowed();
        assertThat(get("/reports/3")).isAllowed();
        assertThat(get("/reports/4")).isRateLimited().hasRetryAfter(Duration.ofMinutes(40)).hasPolicy("reports");

        clock.advance(Duration.ofMinutes(40));
        assertThat(get("/reports/5")).isAllowed();
    }

    @Test
    void noHazelcastMemberStarts(@Autowired ApplicationContext context) {
        assertEquals(0, context.getBeanNamesForType(HazelcastInstance.class).length);
    }
}
