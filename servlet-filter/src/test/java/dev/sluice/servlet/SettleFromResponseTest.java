package dev.sluice.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.ResponseCost;
import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import jakarta.servlet.AsyncContext;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Settling from the response on a real Jetty: a login limit that counts only failed logins (401, 403), and a cost
 * read from a response header the application sets.
 */
final class SettleFromResponseTest {
    private final RateLimiters limiters = LocalRateLimiters.create();
    private JettyHarness server;
    private HttpRateLimiter http;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        limiters.close();
    }

    private RateLimitFilter loginLimit() throws Exception {
        Properties p = new Properties();
        p.setProperty("sluice.policies.login.algorithm", "sliding-log");
        p.setProperty("sluice.policies.login.permit-limit", "5");
        p.setProperty("sluice.policies.login.window", "1h");
        p.setProperty("sluice.policies.login.count-statuses", "401,403");
        p.setProperty("sluice.routes.login.pattern", "/signin");
        p.setProperty("sluice.routes.login.policy", "login");
        http = new HttpRateLimiter(limiters, HttpRateLimiterConfig.fromProperties(p));
        RateLimitFilter filter = new RateLimitFilter(http);
        server = JettyHarness.start(filter);
        return filter;
    }

    private int login(String password) throws Exception {
        return server.get("/signin?password=" + password).statusCode();
    }

    private KeyState key(String policy) {
        return http.limiter(policy).inspect(http.partition("ip:127.0.0.1"));
    }

    @Test
    void loginLimit_countsOnlyFailures() throws Exception {
        loginLimit();
        for (int i = 0; i < 20; i++) {
            assertEquals(200, login("right"), "a successful login gives its permit back");
        }
        for (int i = 0; i < 5; i++) {
            assertEquals(401, login("wrong"));
        }
        assertEquals(429, login("wrong"), "the sixth failure in the window");
        assertEquals(429, login("right"), "the client is locked out, whatever it sends, until the window passes");
    }

    /**
     * Successes and failures at once from 8 threads: at most 5 failures are let through in the window, and once the
     * threads are done, failures one at a time fill it to exactly 5. A success may meet a 429 while failures hold
     * their reservations, never a budget spent by other successes.
     */
    @Test
    void loginLimit_successesAndFailuresAtOnce_letThroughFiveFailures() throws Exception {
        loginLimit();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger succeeded = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < 8; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 10; i++) {
                        int status = login((thread + i) % 2 == 0 ? "right" : "wrong");
                        (status == 401 ? failed : status == 200 ? succeeded : new AtomicInteger()).incrementAndGet();
                        assertTrue(status == 200 || status == 401 || status == 429, "status " + status);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(failed.get() <= 5, failed.get() + " failures let through");
        assertTrue(succeeded.get() > 0, "successes went through");
        int more = 0;
        while (login("wrong") == 401) {
            more++;
        }
        assertEquals(5, failed.get() + more, "exactly 5 failures in the window, counted from the responses");
    }

    @Test
    void asyncRequest_isSettledWhenItCompletes() throws Exception {
        Properties p = new Properties();
        p.setProperty("sluice.policies.login.algorithm", "sliding-log");
        p.setProperty("sluice.policies.login.permit-limit", "5");
        p.setProperty("sluice.policies.login.window", "1h");
        p.setProperty("sluice.policies.login.count-statuses", "401");
        p.setProperty("sluice.routes.a.pattern", "/async/*");
        p.setProperty("sluice.routes.a.policy", "login");
        http = new HttpRateLimiter(limiters, HttpRateLimiterConfig.fromProperties(p));
        server = JettyHarness.start(new RateLimitFilter(http));
        CompletableFuture<HttpResponse<String>> response = server.getAsync("/async/one");
        AsyncContext context = server.nextStarted();
        assertEquals(4, key("login").remaining(), "reserved while the request runs");
        context.dispatch();
        assertEquals(200, response.get(10, TimeUnit.SECONDS).statusCode());
        server.awaitEnded();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (key("login").remaining() != 5 && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // the settlement is asynchronous
        }
        assertEquals(5, key("login").remaining(), "a 200 gave the reservation back");
    }

    @Test
    void costHeader_chargesWhatTheApplicationSays() throws Exception {
        http = new HttpRateLimiter(limiters, HttpRateLimiterConfig.builder()
                .policy("tokens", LimitSpec.slidingLog(100, Duration.ofHours(1)))
                .route("/signin", "tokens")
                .responseCost("tokens", ResponseCost.fromHeader("X-Sluice-Cost")).build());
        server = JettyHarness.start(new RateLimitFilter(http));
        assertEquals(200, server.get("/signin?password=right&cost=30").statusCode());
        awaitRemaining(70);
        assertEquals(200, server.get("/signin?password=right&cost=abc").statusCode());
        awaitRemaining(69); // malformed: the route's cost of 1 stands
        assertEquals(200, server.get("/signin?password=right").statusCode());
        awaitRemaining(68); // absent: likewise
        assertEquals(200, server.get("/signin?password=right&cost=0").statusCode());
        awaitRemaining(68);
    }

    private void awaitRemaining(long expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long remaining;
        do {
            remaining = key("tokens").remaining();
        } while (remaining != expected && System.nanoTime() < deadline);
        assertEquals(expected, remaining);
    }
}
