package dev.sluice.test.spring;

import dev.sluice.test.ResponseAssert;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.ExchangeResult;
import org.springframework.test.web.servlet.MvcResult;

/**
 * {@link dev.sluice.test.SluiceAssertions}' HTTP checks for MockMvc and WebTestClient answers:
 * <pre>{@code
 * assertThat(mvc.perform(get("/api/hello")).andReturn()).isRateLimited();
 * assertThat(client.get().uri("/api/hello").exchange().expectBody().returnResult()).isAllowed().hasRemaining(9);
 * }</pre>
 */
public final class SluiceSpringAssertions {
    private SluiceSpringAssertions() {}

    /** Assertions on a MockMvc answer. */
    public static ResponseAssert assertThat(MvcResult result) {
        Objects.requireNonNull(result, "result");
        return ResponseAssert.of(result.getRequest().getMethod() + " " + result.getRequest().getRequestURI(),
                result.getResponse().getStatus(), name -> List.copyOf(result.getResponse().getHeaders(name)));
    }

    /** Assertions on a WebTestClient answer, e.g. {@code exchange().expectBody().returnResult()}. */
    public static ResponseAssert assertThat(ExchangeResult result) {
        Objects.requireNonNull(result, "result");
        HttpHeaders headers = result.getResponseHeaders();
        return ResponseAssert.of(result.getMethod() + " " + result.getUrl(), result.getStatus().value(), name -> {
            List<String> values = headers.get(name);
            return values == null ? Collections.emptyList() : values;
        });
    }
}
