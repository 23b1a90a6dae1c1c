package dev.sluice.spring;

import dev.sluice.limiter.Lease;
import dev.sluice.servlet.HttpDecision;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponseException;

/**
 * A call refused by a {@link RateLimited} policy. As an {@link ErrorResponseException} it carries 429, the
 * RFC 9457 {@link ProblemDetail} and the response headers ({@code RateLimit-Policy}, {@code RateLimit},
 * {@code Retry-After}) of the HTTP filters' refusals; the starter's exception handler answers it with the
 * same bytes they send.
 */
public class RateLimitExceededException extends ErrorResponseException {
    private static final long serialVersionUID = 1L;

    private final String policy;
    private final transient Lease lease;
    private final transient HttpDecision answer;

    RateLimitExceededException(String policy, Lease lease, HttpDecision answer, URI problemType) {
        super(HttpStatus.TOO_MANY_REQUESTS, problem(policy, answer, problemType), null);
        this.policy = Objects.requireNonNull(policy, "policy");
        this.lease = lease;
        this.answer = answer;
        for (Map.Entry<String, String> h : answer.headers()) {
            getHeaders().set(h.getKey(), h.getValue());
        }
    }

    private static ProblemDetail problem(String policy, HttpDecision answer, URI problemType) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, answer.detail());
        problem.setType(problemType);
        problem.setTitle("Too Many Requests");
        problem.setProperty("violated-policies", List.of(policy)); // the draft's one member; Retry-After says when
        return problem;
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

    @Override
    public String getMessage() {
        return answer.detail();
    }
}
