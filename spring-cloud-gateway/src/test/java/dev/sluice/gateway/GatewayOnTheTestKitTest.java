package dev.sluice.gateway;

import static dev.sluice.test.SluiceAssertions.assertThat;

import dev.sluice.gateway.app.GatewayApp;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.test.spring.AutoConfigureSluiceTest;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
    private static final Backend BACKEND = backend();

    @LocalServerPort
    int port;

    @Autowired
    ManualClock clock;

    /** The service behind the gateway: answers 200 to everything. */
    private static Backend backend() {
        try {
            return Backend.ok();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @DynamicPropertySource
    static void backendUri(DynamicPropertyRegistry registry) {
        registry.add("backend.uri", BACKEND::uri);
    }

    @AfterAll
    static void stopBackend() {
        BACKEND.close();
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

    /**
     * A keep-alive request that arrives while the previous one is still proxied is held back by Reactor Netty and
     * dispatched when that one ends; a refusal answered within that dispatch used to leave the connection unread
     * (reactor-netty#4361), so the client's next request on it waited forever. Two requests in one write, then a
     * third on the same connection: each gets its answer.
     */
    @Test
    void sluiceFilter_aRefusalHeldBehindAProxiedRequest_leavesTheConnectionRead() throws Exception {
        for (int i = 0; i < 5; i++) {
            assertThat(send("POST", "/login")).isAllowed();
        }
        refusalHeldBehindAProxiedRequest("GET /api/orders", "POST /login");
    }

    @Test
    void requestRateLimiter_aRefusalHeldBehindAProxiedRequest_leavesTheConnectionRead() throws Exception {
        for (int i = 0; i < 19; i++) {
            assertThat(send("GET", "/api/orders")).isAllowed();
        }
        refusalHeldBehindAProxiedRequest("GET /api/orders", "GET /api/orders"); // the 20th goes through
    }

    /** {@code proxied} and {@code refused} in one write, then {@code refused} again on the same connection. */
    private void refusalHeldBehindAProxiedRequest(String proxied, String refused) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            String rest = " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Length: 0\r\n\r\n";
            out.write((proxied + rest + refused + rest).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            org.assertj.core.api.Assertions.assertThat(statusOf(in)).isEqualTo(200);
            org.assertj.core.api.Assertions.assertThat(statusOf(in)).isEqualTo(429);
            out.write((refused + rest).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            org.assertj.core.api.Assertions.assertThat(statusOf(in)).isEqualTo(429);
        }
    }

    /** Reads one response (headers, and a body by Content-Length or chunks) and returns its status. */
    private static int statusOf(InputStream in) throws IOException {
        String status = line(in);
        long length = 0;
        boolean chunked = false;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            String lower = header.toLowerCase(java.util.Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring(15).strip());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            for (long size = Long.parseLong(line(in).strip(), 16); size > 0; size = Long.parseLong(line(in).strip(), 16)) {
                in.readNBytes((int) size);
                line(in);
            }
            line(in);
        } else {
            in.readNBytes((int) length);
        }
        return Integer.parseInt(status.split(" ")[1]);
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("the connection closed after: " + line);
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }
}
