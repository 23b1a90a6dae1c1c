package example.webflux;

import static dev.sluice.test.spring.SluiceSpringAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.test.ResponseAssert;
import dev.sluice.test.spring.AutoConfigureSluiceTest;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.netty.http.client.HttpClient;

/**
 * The limits of application.yml, tested in milliseconds: Sluice decides on the test kit's in-process store, on a
 * clock the test moves, instead of the Hazelcast member, which this application has only for Sluice and so
 * leaves out here. Each test starts with full budgets and the clock at its start.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureSluiceTest(excludeAutoConfiguration = HazelcastAutoConfiguration.class)
class LimitsTest {
    @LocalServerPort
    int port;

    @Autowired
    ManualClock clock;

    private WebTestClient client;

    @BeforeEach
    void connect() {
        // A connection per request: on Reactor Netty before 1.3.8 a keep-alive request that arrives before the
        // server has finished the previous one, answered at once (the in-process store decides in the calling
        // thread, and the handlers are Mono.just), leaves the connection unread and the next request on it waiting.
        client = WebTestClient.bindToServer(new ReactorClientHttpConnector(HttpClient.newConnection()))
                .baseUrl("http://127.0.0.1:" + port).responseTimeout(Duration.ofSeconds(60)).build();
    }

    private ResponseAssert get(String path) {
        return assertThat(client.get().uri(path).exchange().expectBody().returnResult());
    }

    @Test
    void api_answers429AfterTenRequestsInAMinute_andAgain200AMinuteLater() {
        for (int i = 0; i < 10; i++) {
            get("/api/hello").isAllowed().hasRemaining(9 - i);
        }
        get("/api/hello").isRateLimited().hasRetryAfter(Duration.ofMinutes(1));

        clock.advance(Duration.ofMinutes(1));
        get("/api/hello").isAllowed().hasRemaining(9);
    }

    @Test
    void reports_answer429AfterThreeInAnHour_andAgain200AnHourAfterTheFirst() {
        get("/reports/1").isAllowed();
        clock.advance(Duration.ofMinutes(20));
        get("/reports/2").isAllowed();
        get("/reports/3").isAllowed();
        get("/reports/4").isRateLimited().hasRetryAfter(Duration.ofMinutes(40)).hasPolicy("reports");

        clock.advance(Duration.ofMinutes(40));
        get("/reports/5").isAllowed();
    }

    @Test
    void noHazelcastMemberStarts(@Autowired ApplicationContext context) {
        assertEquals(0, context.getBeanNamesForType(HazelcastInstance.class).length);
    }
}
