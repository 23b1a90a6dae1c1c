package dev.sluice.spring;

import dev.sluice.limiter.Lease;
import dev.sluice.servlet.HttpDecision;
import dev.sluice.servlet.RateLimitFilterConfig;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A call refused by a {@link RateLimited} policy whose store could not decide and whose failure mode is
 * {@code deny}: not about the caller's quota, so it carries 503, the temporary-reduced-capacity
 * {@link ProblemDetail} and the headers of the HTTP filters' 503; the starter's exception handler answers it
 * with the same bytes they send.
 */
public class RateLimitUnavailableException extends ErrorResponseException {
    private static final long serialVersionUID = 1L;

    private final String policy;
    private final transient Lease lease;
    private final transient HttpDecision answer;

    RateLimitUnavailableException(String policy, Lease lease, HttpDecision answer) {
        super(HttpStatus.SERVICE_UNAVAILABLE, problem(policy, answer), null);
        this.policy = Objects.requireNonNull(policy, "policy");
        this.lease = lease;
        this.answer = answer;
        for (Map.Entry<String, String> h : answer.headers()) {
            getHeaders().set(h.getKey(), h.getValue());
        }
    }

    private static ProblemDetail problem(String policy, HttpDecision answer) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, answer.detail());
        problem.setType(RateLimitFilterConfig.TEMPORARY_REDUCED_CAPACITY);
        problem.setTitle("Service Unavailable");
        problem.setProperty("violated-policies", List.of(policy));
        return problem;
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

    @Override
    public String getMessage() {
        return answer.detail();
    }
}
