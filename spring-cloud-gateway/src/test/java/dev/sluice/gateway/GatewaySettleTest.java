package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.gateway.app.GatewayApp;
import dev.sluice.http.HttpRateLimiter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real gateway (in-process store) in front of a real backend that answers with the status and the
 * {@code X-Sluice-Cost} it is asked for: a route's policy is settled from the backend's response when it commits.
 */
final class GatewaySettleTest {
    private static Backend backend;
    private static ConfigurableApplicationContext gateway;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        backend = Backend.answering(exchange -> {
            String query = exchange.getRequestURI().getQuery();
            int status = 200;
            for (String pair : query == null ? new String[0] : query.split("&")) {
                String[] kv = pair.split("=", 2);
                if (kv[0].equals("cost")) {
                    exchange.getResponseHeaders().set("X-Sluice-Cost", kv[1]);
                } else if (kv[0].equals("status")) {
                    status = Integer.parseInt(kv[1]);
                }
            }
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        port = GatewayFormsTest.freePort();
        List<String> args = new ArrayList<>(List.of("--server.port=" + port,
                "--spring.main.web-application-type=reactive",
                "--sluice.policies.tokens.algorithm=sliding-log", "--sluice.policies.tokens.permit-limit=100",
                "--sluice.policies.tokens.window=10m", "--sluice.policies.tokens.cost-header=X-Sluice-Cost",
                "--sluice.policies.login.algorithm=sliding-log", "--sluice.policies.login.permit-limit=2",
                "--sluice.policies.login.window=10m", "--sluice.policies.login.count-statuses=401,403"));
        args.addAll(backend.route(0, "generate", "/generate/**", "[0]=Sluice=tokens"));
        args.addAll(backend.route(1, "login", "/login/**", "[0]=Sluice=login"));
        gateway = SpringApplication.run(GatewayApp.class, args.toArray(String[]::new));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (backend != null) {
            backend.close();
        }
    }


    private static int get(String path) throws Exception {
        return GatewayFormsTest.send(port, "GET", path).status();
    }

    private static long remaining(String policy) {
        HttpRateLimiter http = gateway.getBean(HttpRateLimiter.class);
        return http.limiter(policy).inspect(http.partition("ip:127.0.0.1")).remaining();
    }

    private static void awaitRemaining(String policy, long expected) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (remaining(policy) != expected && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // a settlement lands as the response commits
        }
        assertThat(remaining(policy)).isEqualTo(expected);
    }

    @Test
    void costHeaderFromTheBackend_chargesTheRoutesPolicy() throws Exception {
        assertThat(get("/generate/a?cost=30")).isEqualTo(200);
        awaitRemaining("tokens", 70);
        assertThat(get("/generate/a?cost=0")).isEqualTo(200);
        awaitRemaining("tokens", 70);
        assertThat(get("/generate/a")).isEqualTo(200);
        awaitRemaining("tokens", 69); // no header: the reservation stands
    }

    @Test
    void countStatuses_onlyFailuresCountAtTheGateway() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(get("/login/x?status=200")).isEqualTo(200);
        }
        assertThat(get("/login/x?status=401")).isEqualTo(401);
        assertThat(get("/login/x?status=403")).isEqualTo(403);
        assertThat(get("/login/x?status=401")).isEqualTo(429);
        assertThat(get("/login/x?status=200")).isEqualTo(429);
    }
}
