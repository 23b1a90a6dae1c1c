package dev.sluice.test.spring;

import static dev.sluice.test.SluiceAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;

import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.test.spring.servletapp.ServletApp;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Set;
import javax.cache.CacheManager;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;
import org.springframework.test.web.servlet.setup.MockMvcBuilders;
import org.springframework.web.context.WebApplicationContext;

/**
 * A Spring MVC application configured for JCache, under {@link AutoConfigureSluiceTest}: its route (the servlet
 * filter) and its {@link dev.sluice.spring.RateLimited} method decide on the test's clock, over a real server and
 * through MockMvc, and each test starts with full budgets.
 */
@SpringBootTest(classes = ServletApp.class, webEnvironment = WebEnvironment.RANDOM_PORT)
@AutoConfigureSluiceTest
final class ServletAppTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @LocalServerPort
    int port;

    @Autowired
    ManualClock clock;

    @Autowired
    WebApplicationContext context;

    /** The starter's registration of the servlet filter, which MockMvc is given as the server would run it. */
    @Autowired
    @Qualifier("sluiceRateLimitFilter")
    FilterRegistrationBean<?> sluiceRateLimitFilter;

    private HttpResponse<String> send(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void route_refusesTheFourthRequestOfTheMinute_untilTheClockMovesOn() throws Exception {
        for (int remaining = 2; remaining >= 0; remaining--) {
            assertThat(send("/api/hello")).isAllowed().hasStatus(200).hasRemaining(remaining);
        }
        assertThat(send("/api/hello")).isRateLimited().hasRetryAfter(Duration.ofMinutes(1)).hasPolicy("per-client");

        clock.advance(Duration.ofSeconds(45));
        assertThat(send("/api/hello")).isRateLimited().hasRetryAfter(Duration.ofSeconds(15));
        clock.advance(Duration.ofSeconds(15));
        assertThat(send("/api/hello")).isAllowed().hasRemaining(2);
    }

    /**
     * The same budget as the test above, spent again through MockMvc: with budgets or the clock carried from one
     * test to the next, whichever of the two runs second fails.
     */
    @Test
    void route_throughMockMvc_startsEachTestWithAFullBudget() throws Exception {
        MockMvc mvc = MockMvcBuilders.webAppContextSetup(context)
                .addFilters(sluiceRateLimitFilter.getFilter()).build();
        assertEquals(new ManualClock().instant(), clock.instant());
        for (int remaining = 2; remaining >= 0; remaining--) {
            MvcResult allowed = mvc.perform(get("/api/hello")).andReturn();
            SluiceSpringAssertions.assertThat(allowed).isAllowed().hasRemaining(remaining);
        }
        MvcResult refused = mvc.perform(get("/api/hello")).andReturn();
        SluiceSpringAssertions.assertThat(refused).isRateLimited().hasRetryAfter(Duration.ofMinutes(1));
    }

    @Test
    void rateLimitedMethod_refusesTheThirdReportOfTheHour_untilTheClockMovesOn() throws Exception {
        assertThat(send("/reports/1")).isAllowed().hasStatus(200);
        clock.advance(Duration.ofMinutes(10));
        assertThat(send("/reports/2")).isAllowed().hasStatus(200);
        assertThat(send("/reports/3")).isRateLimited().hasRetryAfter(Duration.ofMinutes(50)).hasPolicy("reports");

        clock.advance(Duration.ofMinutes(50));
        assertThat(send("/reports/4")).isAllowed().hasStatus(200);
    }

    /** The application's JCache cache manager is left alone: Sluice made no cache in it. */
    @Test
    void configuredJCacheBackend_isReplacedByTheTestStore(@Autowired CacheManager cacheManager) {
        assertEquals(Set.of("sluiceTestRateLimiters"), context.getBeansOfType(RateLimiters.class).keySet());
        assertFalse(cacheManager.getCacheNames().iterator().hasNext(), "Sluice made a JCache cache");
    }
}
