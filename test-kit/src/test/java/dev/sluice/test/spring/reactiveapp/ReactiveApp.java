package dev.sluice.test.spring.reactiveapp;

import dev.sluice.spring.RateLimited;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * A WebFlux application on the starter's default backend (in-process, on the system clock): {@code /api/*}
 * limited by the WebFilter (application.yml), {@code /reports/{id}} by a {@link RateLimited} {@code Mono} method.
 */
@SpringBootApplication
public class ReactiveApp {

    @RestController
    static class Api {
        private final Reports reports;

        Api(Reports reports) {
            this.reports = reports;
        }

        @GetMapping("/api/hello")
        Mono<String> hello() {
            return Mono.just("hello");
        }

        @GetMapping("/reports/{id}")
        Mono<String> report(@PathVariable String id) {
            return reports.build(id);
        }
    }

    @Service
    public static class Reports {
        @RateLimited(policy = "reports")
        public Mono<String> build(String id) {
            return Mono.just("report " + id);
        }
    }
}
