package dev.sluice.gateway;

import static dev.sluice.test.SluiceAssertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.gateway.app.GatewayApp;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.test.spring.AutoConfigureSluiceTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The gateway page's routes (docs/gateway.md) under the test kit's {@link AutoConfigureSluiceTest}: the
 * {@code Sluice} filter and {@code RequestRateLimiter} on Sluice's store decide on the test's clock, so a refused
 * client is let through again the moment the test moves the clock a window on.
 */
@SpringBootTest(classes = GatewayApp.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
    "spring.config.location=classpath:readme-gateway.yml", "spring.main.web-application-type=reactive"})
@AutoConfigureSluiceTest
final class GatewayOnTheTestKitTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final HttpServer BACKEND = backend();

    @LocalServerPort
    int port;

    @Autowired
    ManualClock clock;

    /** The service behind the gateway: answers 200 to everything. */
    private static HttpServer backend() {
        try {
            HttpServer backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            backend.createContext("/", exchange -> {
                exchange.getRequestBody().readAllBytes();
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
            });
            backend.start();
            return backend;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @DynamicPropertySource
    static void backendUri(DynamicPropertyRegistry registry) {
        registry.add("backend.uri", () -> "http://127.0.0.1:" + BACKEND.getAddress().getPort());
    }

    @AfterAll
    static void stopBackend() {
        BACKEND.stop(0);
    }

    private HttpResponse<String> send(String method, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void sluiceFilter_refusesTheSixthLoginOfTheMinute_untilTheClockMovesOn() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(send("POST", "/login")).isAllowed().hasStatus(200).hasRemaining("login", 4 - i);
        }
        assertThat(send("POST", "/login")).isRateLimited().hasRetryAfter(Duration.ofMinutes(1)).hasRemaining("login", 0);

        clock.advance(Duration.ofMinutes(1));
        assertThat(send("POST", "/login")).isAllowed().hasStatus(200);
    }

    @Test
    void requestRateLimiter_refusesThe21stRequestOfTheMinute_untilTheClockMovesOn() throws Exception {
        for (int i = 0; i < 20; i++) {
            assertThat(send("GET", "/api/orders")).isAllowed().hasStatus(200);
        }
        assertThat(send("GET", "/api/orders")).isRateLimited().hasPolicy("per-client");

        clock.advance(Duration.ofMinutes(1));
        assertThat(send("GET", "/api/orders")).isAllowed().hasStatus(200);
    }
}
