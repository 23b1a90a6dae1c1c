package dev.sluice.spring.reactiveapp;

import java.time.Duration;
import dev.sluice.spring.RateLimited;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** A WebFlux application limited by the same application.yml as the servlet one. */
@SpringBootApplication
public class ReactiveApp {

    @RestController
    static class Api {
        private final Quota quota;

        Api(Quota quota) {
            this.quota = quota;
        }

        @GetMapping("/quota/{user}")
        Mono<String> quota(@PathVariable String user) {
            return quota.take(user);
        }

        @GetMapping("/api/hello")
        Mono<String> hello() {
            return Mono.just("hello");
        }

        @GetMapping("/open")
        Mono<String> open() {
            return Mono.just("open");
        }

        @GetMapping("/watch/it")
        Mono<String> watched() {
            return Mono.just("watched");
        }

        @GetMapping({"/slow", "/queued"})
        Mono<String> slow() {
            return Mono.delay(Duration.ofMillis(500)).thenReturn("slow");
        }
    }

    /** Decided with acquireAsync: the Mono waits for the store, no thread does. */
    @Service
    public static class Quota {
        @RateLimited(policy = "reports", key = "'user:' + #user")
        public Mono<String> take(String user) {
            return Mono.just("quota for " + user);
        }
    }
}
