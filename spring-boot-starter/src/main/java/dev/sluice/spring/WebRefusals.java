package dev.sluice.spring;

import dev.sluice.limiter.Lease;
import dev.sluice.http.HttpDecision;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponse;

/**
 * The refusals of {@link RateLimited} methods as Spring's {@link ErrorResponse}, so Spring MVC and WebFlux
 * answer them with status, headers and problem even where the starter's handler is not in play. Only loaded
 * when {@code spring-web} is on the class path.
 */
final class WebRefusals {
    private WebRefusals() {}

    static RateLimitExceededException exceeded(String policy, Lease lease, HttpDecision answer, URI problemType,
            String message) {
        return new Exceeded(policy, lease, answer, problemType, message);
    }

    static RateLimitUnavailableException unavailable(String policy, Lease lease, HttpDecision answer, URI problemType) {
        return new Unavailable(policy, lease, answer, problemType);
    }

    private static HttpHeaders headers(HttpDecision answer) {
        HttpHeaders headers = new HttpHeaders();
        for (Map.Entry<String, String> h : answer.headers()) {
            headers.set(h.getKey(), h.getValue());
        }
        return headers;
    }

    private static ProblemDetail problem(HttpStatus status, String policy, HttpDecision answer, URI problemType) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, answer.detail());
        problem.setType(problemType);
        problem.setTitle(status.getReasonPhrase());
        problem.setProperty("violated-policies", List.of(policy)); // the draft's one member; Retry-After says when
        answer.problemExtensions().forEach(problem::setProperty); // refused-by, where the user asked for it
        return problem;
    }

    /** Status, headers and problem of a refusal, answered the same way for both kinds. */
    private record Answer(HttpStatus status, HttpHeaders headers, ProblemDetail body) {
        Answer(HttpStatus status, String policy, HttpDecision answer, URI problemType) {
            this(status, WebRefusals.headers(answer), problem(status, policy, answer, problemType));
        }
    }

    /** An {@link ErrorResponse} read from its {@link Answer}. */
    private interface Answered extends ErrorResponse {
        Answer web();

        @Override
        default HttpStatusCode getStatusCode() {
            return web().status();
        }

        @Override
        default HttpHeaders getHeaders() {
            return web().headers();
        }

        @Override
        default ProblemDetail getBody() {
            return web().body();
        }
    }

    private static final class Exceeded extends RateLimitExceededException implements Answered {
        private static final long serialVersionUID = 1L;
        private final transient Answer web;

        Exceeded(String policy, Lease lease, HttpDecision answer, URI problemType, String message) {
            super(policy, lease, answer, message);
            this.web = new Answer(HttpStatus.TOO_MANY_REQUESTS, policy, answer, problemType);
        }

        @Override
        public Answer web() {
            return web;
        }
    }

    private static final class Unavailable extends RateLimitUnavailableException implements Answered {
        private static final long serialVersionUID = 1L;
        private final transient Answer web;

        Unavailable(String policy, Lease lease, HttpDecision answer, URI problemType) {
            super(policy, lease, answer);
            this.web = new Answer(HttpStatus.SERVICE_UNAVAILABLE, policy, answer, problemType);
        }

        @Override
        public Answer web() {
            return web;
        }
    }
}
