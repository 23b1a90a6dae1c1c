package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.spring.reactiveapp.ReactiveApp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The WebFlux filter settling from the response, configured as YAML would: a login limit that counts only failed
 * logins, each client its own budget, and a cost read from the response header the application sets.
 */
class ReactiveSettleTest {
    private static ConfigurableApplicationContext app;

    @BeforeAll
    static void start() {
        app = new SpringApplicationBuilder(ReactiveApp.class).run("--server.port=0",
                "--spring.main.web-application-type=reactive",
                "--spring.autoconfigure.exclude=org.springframework.boot.hazelcast.autoconfigure.HazelcastAutoConfiguration",
                "--sluice.policies.login.algorithm=sliding-log", "--sluice.policies.login.permit-limit=5",
                "--sluice.policies.login.window=1h", "--sluice.policies.login.count-statuses=401,403",
                "--sluice.policies.login.identity=api-key", "--sluice.client.api-key-header=X-Client",
                "--sluice.routes.login.pattern=/signin", "--sluice.routes.login.policy=login",
                "--sluice.policies.tokens.algorithm=sliding-log", "--sluice.policies.tokens.permit-limit=100",
                "--sluice.policies.tokens.window=1h", "--sluice.policies.tokens.cost-header=X-Sluice-Cost",
                "--sluice.policies.tokens.identity=api-key",
                "--sluice.routes.tokens.pattern=/generate", "--sluice.routes.tokens.policy=tokens");
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    private static int port() {
        return Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    private static int login(String client, String password) throws Exception {
        return Http.get(port(), "/signin?password=" + password, "X-Client", client).statusCode();
    }

    @Test
    void loginLimit_countsOnlyFailures() throws Exception {
        for (int i = 0; i < 20; i++) {
            assertThat(login("ann", "right")).isEqualTo(200);
        }
        for (int i = 0; i < 5; i++) {
            assertThat(login("ann", "wrong")).isEqualTo(401);
        }
        assertThat(login("ann", "wrong")).isEqualTo(429);
        assertThat(login("bob", "wrong")).as("another client's own budget").isEqualTo(401);
    }

    @Test
    void loginLimit_successesAndFailuresAtOnce_letThroughFiveFailures() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicInteger failed = new AtomicInteger();
        AtomicInteger succeeded = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < 8; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < 10; i++) {
                        int status = login("carl", (thread + i) % 2 == 0 ? "right" : "wrong");
                        assertThat(status).isIn(200, 401, 429);
                        if (status == 401) {
                            failed.incrementAndGet();
                        } else if (status == 200) {
                            succeeded.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(failed.get()).isLessThanOrEqualTo(5);
        assertThat(succeeded.get()).isPositive();
        HttpRateLimiter http = app.getBean(HttpRateLimiter.class);
        String carl = http.partition("api-key:carl");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (http.limiter("login").inspect(carl).remaining() != 5 - failed.get() && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // settlements land after the responses
        }
        int more = 0;
        while (login("carl", "wrong") == 401) {
            more++;
        }
        assertThat(failed.get() + more).as("exactly 5 failures in the window").isEqualTo(5);
    }

    @Test
    void costHeader_chargesWhatTheApplicationSays() throws Exception {
        HttpRateLimiter http = app.getBean(HttpRateLimiter.class);
        String dora = http.partition("api-key:dora");
        assertThat(generate("dora", "30")).isEqualTo(200);
        awaitRemaining(http, dora, 70);
        assertThat(generate("dora", "nonsense")).isEqualTo(200);
        awaitRemaining(http, dora, 69); // unreadable: the route's cost of 1 stands
        assertThat(generate("dora", "500")).isEqualTo(200);
        awaitRemaining(http, dora, 0); // above the limit: charged whole, what the budget could not pay owed
    }

    private static int generate(String client, String cost) throws Exception {
        return Http.get(port(), "/generate?password=right&cost=" + cost, "X-Client", client).statusCode();
    }

    private static void awaitRemaining(HttpRateLimiter http, String partition, long expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (http.limiter("tokens").inspect(partition).remaining() != expected && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(http.limiter("tokens").inspect(partition).remaining()).isEqualTo(expected);
    }
}
