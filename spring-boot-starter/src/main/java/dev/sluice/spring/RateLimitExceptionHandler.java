package dev.sluice.spring;

import dev.sluice.http.HttpDecision;
import java.util.Map;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers {@link RateLimitExceededException} (429) and {@link RateLimitUnavailableException} (503) in Spring MVC
 * and WebFlux controllers exactly as the HTTP filters answer them: the status, the rate-limit headers,
 * {@code Retry-After} and the problem body. Ordered
 * before the application's advice of default order, so a catch-all handler does not turn it into a 500; an
 * application that wants to answer it itself declares a handler of higher precedence.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE - 1000)
public class RateLimitExceptionHandler {

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<byte[]> rateLimited(RateLimitExceededException e) {
        return answer(e.answer());
    }

    /** A {@link RateLimited} call whose store could not decide, refused by failure mode {@code deny}: 503. */
    @ExceptionHandler(RateLimitUnavailableException.class)
    public ResponseEntity<byte[]> unavailable(RateLimitUnavailableException e) {
        return answer(e.answer());
    }

    private static ResponseEntity<byte[]> answer(HttpDecision answer) {
        HttpHeaders headers = new HttpHeaders();
        for (Map.Entry<String, String> h : answer.headers()) {
            headers.set(h.getKey(), h.getValue());
        }
        return ResponseEntity.status(answer.status()).headers(headers)
                .contentType(MediaType.parseMediaType(HttpDecision.PROBLEM_CONTENT_TYPE)).body(answer.body());
    }
}
