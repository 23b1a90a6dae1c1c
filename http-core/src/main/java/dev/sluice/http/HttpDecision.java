package dev.sluice.http;

import dev.sluice.limiter.Lease;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * What {@link HttpRateLimiter} made of one request, ready for any server to answer: either the request
 * proceeds with these headers (holding the concurrency leases in {@link #heldLeases()} until it ends), or
 * it is answered at once with {@link #status()}, these headers and a problem body. Thread-safe.
 */
public final class HttpDecision {
    /** The content type of every problem body. */
    public static final String PROBLEM_CONTENT_TYPE = Responses.PROBLEM_JSON + ";charset=UTF-8";

    static final HttpDecision NOT_LIMITED = new HttpDecision(false, 0, Map.of(), null, null, Map.of(), List.of());

    private final boolean limited;
    private final int status;
    private final List<Map.Entry<String, String>> headers;
    private final byte[] body;
    private final String detail;
    private final Map<String, Object> extensions;
    private final List<Lease> held;
    private final AtomicBoolean released = new AtomicBoolean();

    private HttpDecision(boolean limited, int status, Map<String, String> headers, byte[] body, String detail,
            Map<String, Object> extensions, List<Lease> held) {
        this.limited = limited;
        this.status = status;
        this.headers = headers.entrySet().stream().map(e -> Map.entry(e.getKey(), e.getValue())).toList();
        this.body = body;
        this.detail = detail;
        this.extensions = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(extensions));
        this.held = List.copyOf(held);
    }

    /** A request that proceeds with the headers of {@code answer}, holding {@code held} while it runs. */
    static HttpDecision proceed(Responses.Answer answer, List<Lease> held) {
        return new HttpDecision(true, 0, answer.headers, null, null, Map.of(), held);
    }

    /** A request answered at once with {@code answer}. */
    static HttpDecision answer(Responses.Answer answer) {
        return new HttpDecision(true, answer.status, answer.headers, answer.body, answer.detail, answer.extensions,
                List.of());
    }

    /** True if some policy applied to the request; false if no route matched it (nothing is to be added). */
    public boolean limited() {
        return limited;
    }

    /** True if the request goes on to the application. */
    public boolean proceeds() {
        return status == 0;
    }

    /** The status to answer with when the request does not proceed: 429, or 503 when no decision could be had. */
    public int status() {
        return status;
    }

    /** The response headers to set, in order: the rate-limit headers, and on a refusal {@code Retry-After} too. */
    public List<Map.Entry<String, String>> headers() {
        return headers;
    }

    /** The RFC 9457 problem body (UTF-8 JSON, {@link #PROBLEM_CONTENT_TYPE}) when the request does not proceed. */
    public byte[] body() {
        return body == null ? new byte[0] : body.clone();
    }

    /** The problem body as text; empty when the request proceeds. */
    public String bodyText() {
        return body == null ? "" : new String(body, StandardCharsets.UTF_8);
    }

    /** The problem body's {@code detail}, e.g. which policies refused and when to retry; empty when the request proceeds. */
    public String detail() {
        return detail == null ? "" : detail;
    }

    /**
     * The problem body's members beyond RFC 9457's and {@code violated-policies}, in the body's order, for a server
     * that writes the problem itself (Spring's {@code ProblemDetail}): {@code refused-by} when
     * {@link HttpRateLimiterConfig#problemDecisions()} is on, a list of maps of strings and numbers; empty otherwise.
     */
    public Map<String, Object> problemExtensions() {
        return extensions;
    }

    /** The concurrency leases the request holds while it runs; release them with {@link #release()}. */
    public List<Lease> heldLeases() {
        return held;
    }

    /** Releases the held leases once; call it when the request ends, however it ends. */
    public void release() {
        if (released.compareAndSet(false, true)) {
            held.forEach(Lease::close);
        }
    }

    // ---- settling from the response ({@link ResponseCost}) ----

    /** Set once, before the decision is handed to an adapter. */
    private List<ResponseSettlement.Pending> settlements = List.of();
    private final AtomicBoolean settled = new AtomicBoolean();

    /** This decision, whose response settles {@code pending}. */
    HttpDecision settling(List<ResponseSettlement.Pending> pending) {
        this.settlements = List.copyOf(pending);
        return this;
    }

    /**
     * True if the response settles some policy's grant ({@link ResponseCost}): the adapter then calls
     * {@link #settle} once the response's status (and headers) are known.
     */
    public boolean settlesFromResponse() {
        return !settlements.isEmpty();
    }

    /**
     * Settles the grants of the policies that settle from the response, once: by {@code status} and the response
     * headers {@code responseHeaders} answers (null when absent). Later calls do nothing. Does not block.
     *
     * @return completes, never exceptionally, when every settlement has (a failed one leaves its reservation)
     */
    public CompletableFuture<Void> settle(int status, Function<String, String> responseHeaders) {
        java.util.Objects.requireNonNull(responseHeaders, "responseHeaders");
        if (settlements.isEmpty() || !settled.compareAndSet(false, true)) {
            return CompletableFuture.completedFuture(null);
        }
        return ResponseSettlement.settle(settlements, status, responseHeaders);
    }
}
