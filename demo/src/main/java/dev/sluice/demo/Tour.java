package dev.sluice.demo;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The tour the demo runs at start-up, over real HTTP: one client's 12 requests alternate between the two
 * instances against the exact {@value DemoPolicies#TOUR_POLICY} policy and must give exactly 10 × 200 then
 * 2 × 429 with {@code Retry-After}; a second client must still get its own budget; the RateLimit headers
 * of one response are printed. Every check is printed as {@code [ok]} or {@code [FAILED]}.
 *
 * <p>API keys start with a per-run prefix, so running the tour again within the window starts afresh.
 */
final class Tour {
    /** Requests the first client sends: two more than the limit. */
    static final int REQUESTS = 12;

    private final HttpClient client;
    private final URI a;
    private final URI b;
    private final PrintStream out;
    private boolean allHeld = true;

    Tour(HttpClient client, URI a, URI b, PrintStream out) {
        this.client = Objects.requireNonNull(client, "client");
        this.a = Objects.requireNonNull(a, "a");
        this.b = Objects.requireNonNull(b, "b");
        this.out = Objects.requireNonNull(out, "out");
    }

    /**
     * Runs the tour with API keys {@code keyPrefix + "-alice"} and {@code keyPrefix + "-bob"}.
     *
     * @return true if every check held
     * @throws IOException if a request fails
     * @throws InterruptedException if interrupted while waiting for a response
     */
    boolean run(String keyPrefix) throws IOException, InterruptedException {
        String path = "/api/" + DemoPolicies.TOUR_POLICY;
        String alice = keyPrefix + "-alice";
        String bob = keyPrefix + "-bob";

        out.printf("1. %d requests with X-Api-Key: %s, alternating A and B, to %s (%s)%n", REQUESTS, alice, path,
                DemoPolicies.descriptions().get(DemoPolicies.TOUR_POLICY));
        List<HttpResponse<String>> responses = new ArrayList<>();
        boolean servedByNamed = true;
        boolean degraded = false;
        for (int i = 0; i < REQUESTS; i++) {
            String instance = i % 2 == 0 ? "A" : "B";
            HttpResponse<String> r = get(i % 2 == 0 ? a : b, path, alice);
            responses.add(r);
            degraded |= r.headers().firstValue("RateLimit-Degraded").isPresent();
            if (r.statusCode() == 200) {
                servedByNamed &= r.body().contains("\"instance\":\"" + instance + "\"");
                out.printf("   %2d  %s  %d  RateLimit: %s%n", i + 1, instance, r.statusCode(),
                        header(r, "RateLimit"));
            } else {
                out.printf("   %2d  %s  %d  Retry-After: %s%n", i + 1, instance, r.statusCode(),
                        header(r, "Retry-After"));
            }
        }
        long granted = responses.stream().limit(DemoPolicies.LIMIT).filter(r -> r.statusCode() == 200).count();
        long refusedWithRetryAfter = responses.stream().skip(DemoPolicies.LIMIT)
                .filter(r -> r.statusCode() == 429 && retryAfterSeconds(r).filter(s -> s >= 1).isPresent()).count();
        check(granted == DemoPolicies.LIMIT && refusedWithRetryAfter == REQUESTS - DemoPolicies.LIMIT,
                "exactly " + DemoPolicies.LIMIT + " x 200, then " + (REQUESTS - DemoPolicies.LIMIT)
                        + " x 429 with Retry-After: one budget across both instances");
        check(servedByNamed, "each 200 came from the instance it was sent to");
        check(!degraded, "every decision came from the cluster (no RateLimit-Degraded)");

        out.printf("2. Another client, X-Api-Key: %s, on both instances%n", bob);
        HttpResponse<String> bobOnB = get(b, path, bob);
        HttpResponse<String> bobOnA = get(a, path, bob);
        out.printf("   B  %d  RateLimit: %s%n", bobOnB.statusCode(), header(bobOnB, "RateLimit"));
        out.printf("   A  %d  RateLimit: %s%n", bobOnA.statusCode(), header(bobOnA, "RateLimit"));
        check(bobOnB.statusCode() == 200 && bobOnA.statusCode() == 200, "a second client has its own budget");
        check(remainingIs(bobOnA, DemoPolicies.LIMIT - 2),
                "its budget is shared too: " + (DemoPolicies.LIMIT - 2) + " left after one request on each");

        out.println("3. The rate-limit headers of that last response, and of a refusal");
        for (String name : List.of("RateLimit-Policy", "RateLimit")) {
            out.printf("   %s: %s%n", name, header(bobOnA, name));
        }
        HttpResponse<String> refusal = responses.get(REQUESTS - 1);
        out.printf("   HTTP %d  Retry-After: %s  Content-Type: %s%n", refusal.statusCode(),
                header(refusal, "Retry-After"), header(refusal, "Content-Type"));
        out.printf("   %s%n", refusal.body().strip());
        out.println(allHeld ? "Every check held." : "Some checks FAILED.");
        return allHeld;
    }

    private void check(boolean held, String what) {
        allHeld &= held;
        out.printf("   [%s] %s%n", held ? "ok" : "FAILED", what);
    }

    private HttpResponse<String> get(URI base, String path, String apiKey) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10))
                .header("X-Api-Key", apiKey).GET().build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String header(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse("(none)");
    }

    /** True if the {@code RateLimit} header's (first) item has {@code r=<remaining>}. */
    static boolean remainingIs(HttpResponse<?> r, long remaining) {
        return header(r, "RateLimit").matches("[^,]*;r=" + remaining + "(;.*|,.*)?");
    }

    /** The {@code Retry-After} header as whole seconds, if present and numeric. */
    static Optional<Long> retryAfterSeconds(HttpResponse<?> r) {
        try {
            return r.headers().firstValue("Retry-After").map(Long::parseLong);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
