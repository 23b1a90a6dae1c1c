package dev.sluice.spring;

import dev.sluice.limiter.Lease;
import dev.sluice.http.HttpDecision;
import java.util.Objects;

/**
 * A call refused by a {@link RateLimited} policy whose store could not decide and whose failure mode is
 * {@code deny}: not about the caller's quota. A plain exception, catchable with or without {@code spring-web};
 * where {@code spring-web} is present the instance thrown is also Spring's
 * {@code org.springframework.web.ErrorResponse}, carrying 503, the temporary-reduced-capacity problem and the
 * headers of the HTTP filters' 503; the starter's exception handler answers it with the same bytes they send.
 */
public class RateLimitUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String policy;
    private final transient Lease lease;
    private final transient HttpDecision answer;

    RateLimitUnavailableException(String policy, Lease lease, HttpDecision answer) {
        super(answer.detail());
        this.policy = Objects.requireNonNull(policy, "policy");
        this.lease = lease;
        this.answer = answer;
    }

    /** The policy that could not decide. */
    public String policy() {
        return policy;
    }

    /** The degraded lease the failure mode refused. */
    public Lease lease() {
        return lease;
    }

    /** The answer as the HTTP filters would give it: status, headers and problem body. */
    public HttpDecision answer() {
        return answer;
    }
}
