package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.gateway.app.GatewayApp;
import dev.sluice.http.HttpRateLimiter;
import java.net.InetSocketAddress;
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
    private static final String ROUTES = "--spring.cloud.gateway.server.webflux.routes";
    private static HttpServer backend;
    private static ConfigurableApplicationContext gateway;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        backend.createContext("/", exchange -> {
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
        backend.start();
        port = GatewayFormsTest.freePort();
        List<String> args = new ArrayList<>(List.of("--server.port=" + port,
                "--spring.main.web-application-type=reactive",
                "--sluice.policies.tokens.algorithm=sliding-log", "--sluice.policies.tokens.permit-limit=100",
                "--sluice.policies.tokens.window=10m", "--sluice.policies.tokens.cost-header=X-Sluice-Cost",
                "--sluice.policies.login.algorithm=sliding-log", "--sluice.policies.login.permit-limit=2",
                "--sluice.policies.login.window=10m", "--sluice.policies.login.count-statuses=401,403"));
        args.addAll(route(0, "generate", "/generate/**", "Sluice=tokens"));
        args.addAll(route(1, "login", "/login/**", "Sluice=login"));
        gateway = SpringApplication.run(GatewayApp.class, args.toArray(String[]::new));
    }

    @AfterAll
    static void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (backend != null) {
            backend.stop(0);
        }
    }

    private static List<String> route(int index, String id, String path, String filter) {
        return List.of(ROUTES + "[" + index + "].id=" + id,
                ROUTES + "[" + index + "].uri=http://127.0.0.1:" + backend.getAddress().getPort(),
                ROUTES + "[" + index + "].predicates[0]=Path=" + path, ROUTES + "[" + index + "].filters[0]=" + filter);
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
