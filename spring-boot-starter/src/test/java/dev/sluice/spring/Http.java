package dev.sluice.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A real HTTP client for the tests. */
final class Http {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    private Http() {}

    static HttpResponse<String> get(int port, String path) throws Exception {
        return CLIENT.send(request(port, path), HttpResponse.BodyHandlers.ofString());
    }

    /** A GET with these headers (name, value, name, value, ...). */
    static HttpResponse<String> get(int port, String path, String... headers) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).headers(headers).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A POST of {@code body} with this content type. */
    static HttpResponse<String> post(int port, String path, String contentType, String body) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code count} requests at once, spread over the ports in turn; their responses in sending order. */
    static List<HttpResponse<String>> burst(int count, String path, int... ports) {
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sent.add(CLIENT.sendAsync(request(ports[i % ports.length], path), HttpResponse.BodyHandlers.ofString()));
        }
        return sent.stream().map(CompletableFuture::join).toList();
    }

    private static HttpRequest request(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
                .GET().build();
    }

    static long count(List<HttpResponse<String>> responses, int status) {
        return responses.stream().filter(r -> r.statusCode() == status).count();
    }
}
