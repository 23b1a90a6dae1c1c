package dev.sluice.spring.reactiveapp;

import dev.sluice.spring.RateLimited;
import java.security.Principal;
import java.time.Duration;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/** A WebFlux application limited by the same application.yml as the servlet one. */
@SpringBootApplication
public class ReactiveApp {

    /** The application's authentication, reduced to the tests' needs: {@code X-Test-User} is the principal. */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    WebFilter testAuthentication() {
        return (exchange, chain) -> {
            String user = exchange.getRequest().getHeaders().getFirst("X-Test-User");
            return chain.filter(user == null ? exchange
                    : exchange.mutate().principal(Mono.just((Principal) () -> user)).build());
        };
    }

    @RestController
    static class Api {
        private final Quota quota;
        private final Exports exports;
        private final Archive archive;

        Api(Quota quota, Exports exports, Archive archive) {
            this.quota = quota;
            this.exports = exports;
            this.archive = archive;
        }

        @GetMapping("/quota")
        Mono<String> quota(Principal user) {
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

        @GetMapping("/whoami")
        Mono<String> whoami(ServerHttpRequest request) {
            return Mono.just(String.valueOf(request.getRemoteAddress()));
        }

        /**
         * A login (and, as {@code /generate}, any work with a cost): 200 to the password {@code right}, 401 to any
         * other; {@code X-Sluice-Cost} set to its cost.
         */
        @GetMapping({"/signin", "/generate"})
        Mono<org.springframework.http.ResponseEntity<String>> signIn(
                @org.springframework.web.bind.annotation.RequestParam(required = false) String password,
                @org.springframework.web.bind.annotation.RequestParam(required = false) String cost) {
            var response = org.springframework.http.ResponseEntity.status("right".equals(password) ? 200 : 401);
            if (cost != null) {
                response.header("X-Sluice-Cost", cost);
            }
            return Mono.just(response.body("signin"));
        }

        @GetMapping("/watch/it")
        Mono<String> watched() {
            return Mono.just("watched");
        }

        @GetMapping({"/slow", "/queued", "/pause"})
        Mono<String> slow() {
            return Mono.delay(Duration.ofMillis(500)).thenReturn("slow");
        }

        @GetMapping("/exports/{name}")
        Mono<String> export(@PathVariable String name) {
            return exports.export(name);
        }

        @GetMapping("/archive/{name}")
        Mono<String> archive(@PathVariable String name) {
            return archive.store(name);
        }
    }

    /** Decided with acquireAsync: the Mono waits for the store, no thread does. */
    @Service
    public static class Quota {
        /** Keyed on the authenticated user: a path variable would let anyone spend another user's budget. */
        @RateLimited(policy = "reports", key = "'principal:' + #user.name")
        public Mono<String> take(Principal user) {
            return Mono.just("quota for " + user.getName());
        }
    }

    /** Annotated on the interface, as OpenAPI generators write it. */
    public interface Exports {
        @RateLimited(policy = "reports", key = "'exports'")
        Mono<String> export(String name);
    }

    @Service
    public static class CsvExports implements Exports {
        @Override
        public Mono<String> export(String name) {
            return Mono.just("export " + name);
        }
    }

    /** Annotated on the superclass method the bean overrides. */
    public abstract static class Store {
        @RateLimited(policy = "reports", key = "'archive'")
        public abstract Mono<String> store(String name);
    }

    @Service
    public static class Archive extends Store {
        @Override
        public Mono<String> store(String name) {
            return Mono.just("stored " + name);
        }
    }
}
