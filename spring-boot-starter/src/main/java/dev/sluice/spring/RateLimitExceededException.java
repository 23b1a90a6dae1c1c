package dev.sluice.spring;

import dev.sluice.http.HttpDecision;
import dev.sluice.limiter.Lease;

/**
 * A call refused by a {@link RateLimited} policy. A plain exception, so any application can catch it, with or
 * without {@code spring-web}: workers and batch jobs read {@link #lease()} (remaining permits, retry-after).
 * Where {@code spring-web} is present the instance thrown is also Spring's
 * {@code org.springframework.web.ErrorResponse}, carrying 429, the RFC 9457 problem and the response headers
 * ({@code RateLimit-Policy}, {@code RateLimit}, {@code Retry-After}) of the HTTP filters' refusals; the
 * starter's exception handler answers it with the same bytes they send.
 */
public class RateLimitExceededException extends RateLimitRefusalException {
    private static final long serialVersionUID = 1L;

    RateLimitExceededException(String policy, Lease lease, HttpDecision answer) {
        this(policy, lease, answer, answer.detail());
    }

    RateLimitExceededException(String policy, Lease lease, HttpDecision answer, String message) {
        super(policy, lease, answer, message);
    }
}
