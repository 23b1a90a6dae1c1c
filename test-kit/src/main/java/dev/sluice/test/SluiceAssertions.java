package dev.sluice.test;

import dev.sluice.limiter.Lease;
import java.net.http.HttpResponse;
import java.util.Objects;

/**
 * Assertions that read as what a rate-limited application promises, with no assertion library:
 * <pre>{@code
 * assertThat(response).isRateLimited().hasRetryAfter(Duration.ofSeconds(60));
 * assertThat(limiter.tryAcquire(1)).isRefused();
 * }</pre>
 * MockMvc and WebTestClient answers have theirs in {@code dev.sluice.test.spring.SluiceSpringAssertions}, so a test
 * without Spring needs no Spring on its class path.
 */
public final class SluiceAssertions {
    private SluiceAssertions() {}

    /** Assertions on an answer of the JDK's HTTP client. */
    public static ResponseAssert assertThat(HttpResponse<?> response) {
        Objects.requireNonNull(response, "response");
        return ResponseAssert.of(response.request().method() + " " + response.uri(), response.statusCode(),
                name -> response.headers().allValues(name));
    }

    /** Assertions on a limiter's decision. */
    public static LeaseAssert assertThat(Lease lease) {
        return new LeaseAssert(lease);
    }
}
