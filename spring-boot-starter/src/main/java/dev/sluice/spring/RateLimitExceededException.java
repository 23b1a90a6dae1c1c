package dev.sluice.spring;

import dev.sluice.limiter.Lease;
import dev.sluice.http.HttpDecision;
import java.util.Objects;

/**
 * A call refused by a {@link RateLimited} policy. A plain exception, so any application can catch it, with or
 * without {@code spring-web}: workers and batch jobs read {@link #lease()} (remaining permits, retry-after).
 * Where {@code spring-web} is present the instance thrown is also Spring's
 * {@code org.springframework.web.ErrorResponse}, carrying 429, the RFC 9457 problem and the response headers
 * ({@code RateLimit-Policy}, {@code RateLimit}, {@code Retry-After}) of the HTTP filters' refusals; the
 * starter's exception handler answers it with the same bytes they send.
 */
public class RateLimitExceededException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String policy;
    private final transient Lease lease;
    private final transient HttpDecision answer;

    RateLimitExceededException(String policy, Lease lease, HttpDecision answer) {
        this(policy, lease, answer, answer.detail());
    }

    RateLimitExceededException(String policy, Lease lease, HttpDecision answer, String message) {
        super(message);
        this.policy = Objects.requireNonNull(policy, "policy");
        this.lease = lease;
        this.answer = answer;
    }

    /** The policy that refused. */
    public String policy() {
        return policy;
    }

    /** The refused lease: remaining permits, retry-after, reset. */
    public Lease lease() {
        return lease;
    }

    /** The answer as the HTTP filters would give it: status, headers and problem body. */
    public HttpDecision answer() {
        return answer;
    }
}
