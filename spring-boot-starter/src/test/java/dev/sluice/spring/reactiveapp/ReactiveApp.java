package dev.sluice.spring.reactiveapp;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** A WebFlux application limited by the same application.yml as the servlet one. */
@SpringBootApplication
public class ReactiveApp {

    @RestController
    static class Api {
        @GetMapping("/api/hello")
        Mono<String> hello() {
            return Mono.just("hello");
        }

        @GetMapping("/open")
        Mono<String> open() {
            return Mono.just("open");
        }
    }
}
