package dev.sluice.spring;

import dev.sluice.servlet.HttpDecision;
import java.util.Map;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Answers {@link RateLimitExceededException} in Spring MVC and WebFlux controllers exactly as the HTTP
 * filters answer a refusal: 429, the rate-limit headers, {@code Retry-After} and the problem body. Ordered
 * before the application's advice of default order, so a catch-all handler does not turn it into a 500; an
 * application that wants to answer it itself declares a handler of higher precedence.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE - 1000)
public class RateLimitExceptionHandler {

    @ExceptionHandler(RateLimitExceededException.class)
    public ResponseEntity<byte[]> rateLimited(RateLimitExceededException e) {
        HttpDecision answer = e.answer();
        HttpHeaders headers = new HttpHeaders();
        for (Map.Entry<String, String> h : answer.headers()) {
            headers.set(h.getKey(), h.getValue());
        }
        return ResponseEntity.status(answer.status()).headers(headers)
                .contentType(MediaType.parseMediaType(HttpDecision.PROBLEM_CONTENT_TYPE)).body(answer.body());
    }
}
