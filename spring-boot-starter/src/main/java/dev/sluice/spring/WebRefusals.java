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
        return problem;
    }

    private static final class Exceeded extends RateLimitExceededException implements ErrorResponse {
        private static final long serialVersionUID = 1L;
        private final transient HttpHeaders headers;
        private final transient ProblemDetail body;

        Exceeded(String policy, Lease lease, HttpDecision answer, URI problemType, String message) {
            super(policy, lease, answer, message);
            this.headers = headers(answer);
            this.body = problem(HttpStatus.TOO_MANY_REQUESTS, policy, answer, problemType);
        }

        @Override
        public HttpStatusCode getStatusCode() {
            return HttpStatus.TOO_MANY_REQUESTS;
        }

        @Override
        public HttpHeaders getHeaders() {
            return headers;
        }

        @Override
        public ProblemDetail getBody() {
            return body;
        }
    }

    private static final class Unavailable extends RateLimitUnavailableException implements ErrorResponse {
        private static final long serialVersionUID = 1L;
        private final transient HttpHeaders headers;
        private final transient ProblemDetail body;

        Unavailable(String policy, Lease lease, HttpDecision answer, URI problemType) {
            super(policy, lease, answer);
            this.headers = headers(answer);
            this.body = problem(HttpStatus.SERVICE_UNAVAILABLE, policy, answer, problemType);
        }

        @Override
        public HttpStatusCode getStatusCode() {
            return HttpStatus.SERVICE_UNAVAILABLE;
        }

        @Override
        public HttpHeaders getHeaders() {
            return headers;
        }

        @Override
        public ProblemDetail getBody() {
            return body;
        }
    }
}
