package example.webflux;

import dev.sluice.spring.RateLimited;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Two routes: {@code /api/*}, limited per client address by Sluice's WebFilter (application.yml), which
 * decides without blocking the event loop, and {@code /reports/{id}}, whose {@code Mono} service method is
 * limited by {@code @RateLimited} when it is subscribed.
 */
@SpringBootApplication
public class WebFluxApp {

    public static void main(String[] args) {
        SpringApplication.run(WebFluxApp.class, args);
    }

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

        /** A refusal of the service answers 429 with the filter's headers and problem body. */
        @GetMapping("/reports/{id}")
        Mono<String> report(@PathVariable String id) {
            return reports.build(id);
        }
    }

    @Service
    public static class Reports {
        // One budget for every caller here; key on who is authenticated in a real application.
        @RateLimited(policy = "reports")
        public Mono<String> build(String id) {
            return Mono.just("report " + id);
        }
    }
}
