package dev.sluice.spring;

import dev.sluice.http.HttpDecision;
import dev.sluice.limiter.Lease;

/**
 * A call refused by a {@link RateLimited} policy whose store could not decide and whose failure mode is
 * {@code deny}: not about the caller's quota. A plain exception, catchable with or without {@code spring-web};
 * where {@code spring-web} is present the instance thrown is also Spring's
 * {@code org.springframework.web.ErrorResponse}, carrying 503, the temporary-reduced-capacity problem and the
 * headers of the HTTP filters' 503; the starter's exception handler answers it with the same bytes they send.
 */
public class RateLimitUnavailableException extends RateLimitRefusalException {
    private static final long serialVersionUID = 1L;

    RateLimitUnavailableException(String policy, Lease lease, HttpDecision answer) {
        super(policy, lease, answer, answer.detail());
    }
}
