package dev.sluice.spring;

import dev.sluice.http.HttpDecision;
import dev.sluice.limiter.Lease;
import java.util.Objects;

/**
 * A call refused by a {@link RateLimited} policy: on quota ({@link RateLimitExceededException}) or because its
 * store could not decide ({@link RateLimitUnavailableException}). A plain exception, so any application can
 * catch it, with or without {@code spring-web}.
 */
public abstract class RateLimitRefusalException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String policy;
    private final transient Lease lease;
    private final transient HttpDecision answer;

    RateLimitRefusalException(String policy, Lease lease, HttpDecision answer, String message) {
        super(message);
        this.policy = Objects.requireNonNull(policy, "policy");
        this.lease = lease;
        this.answer = answer;
    }

    /** The policy that refused. */
    public String policy() {
        return policy;
    }

    /** The refused lease: remaining permits, retry-after, reset; degraded when the store could not decide. */
    public Lease lease() {
        return lease;
    }

    /** The answer as the HTTP filters would give it: status, headers and problem body. */
    public HttpDecision answer() {
        return answer;
    }
}
