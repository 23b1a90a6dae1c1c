package dev.sluice.test.spring;

import static dev.sluice.test.spring.SluiceSpringAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.test.ResponseAssert;
import dev.sluice.test.spring.reactiveapp.ReactiveApp;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.netty.http.client.HttpClient;

/**
 * A WebFlux application on the starter's in-process default, under {@link AutoConfigureSluiceTest}: its route
 * (the WebFilter) and its {@link dev.sluice.spring.RateLimited} {@code Mono} method decide on the test's clock,
 * seen through WebTestClient.
 */
@SpringBootTest(classes = ReactiveApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "spring.main.web-application-type=reactive")
@AutoConfigureSluiceTest
final class ReactiveAppTest {
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
    void route_refusesTheFourthRequestOfTheMinute_untilTheClockMovesOn() {
        for (int remaining = 2; remaining >= 0; remaining--) {
            get("/api/hello").isAllowed().hasStatus(200).hasRemaining(remaining);
        }
        get("/api/hello").isRateLimited().hasRetryAfter(Duration.ofMinutes(1)).hasRemaining("per-client", 0);

        clock.advance(Duration.ofMinutes(1));
        get("/api/hello").isAllowed().hasRemaining(2);
    }

    @Test
    void rateLimitedMonoMethod_refusesTheThirdReportOfTheHour_untilTheClockMovesOn() {
        get("/reports/1").isAllowed().hasStatus(200);
        get("/reports/2").isAllowed().hasStatus(200);
        get("/reports/3").isRateLimited().hasRetryAfter(Duration.ofHours(1)).hasPolicy("reports");

        clock.advance(Duration.ofHours(1));
        get("/reports/4").isAllowed().hasStatus(200);
    }

    /** The starter's in-process default, on the system clock, stood back. */
    @Test
    void inProcessDefault_isReplacedByTheTestStore(@Autowired ApplicationContext context) {
        assertEquals(Set.of("sluiceTestRateLimiters"), context.getBeansOfType(RateLimiters.class).keySet());
    }
}
