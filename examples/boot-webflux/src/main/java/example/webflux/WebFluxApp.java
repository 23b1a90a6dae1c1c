package example.webflux;

import com.hazelcast.config.NetworkConfig;
import dev.sluice.spring.RateLimited;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.hazelcast.autoconfigure.HazelcastConfigCustomizer;
import org.springframework.context.annotation.Bean;
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

    /**
     * The member's ports from one property, {@code example.hazelcast-port} (5701 in application.yml): the
     * member takes the first free of that port and the next, and looks for its peer on both, so a second copy
     * of this example beside the first runs with {@code --example.hazelcast-port=5711} and forms a cluster of
     * its own instead of joining this one.
     */
    @Bean
    HazelcastConfigCustomizer memberPorts(@Value("${example.hazelcast-port}") int port) {
        return config -> {
            NetworkConfig network = config.getNetworkConfig().setPort(port).setPortAutoIncrement(true).setPortCount(2);
            network.getJoin().getTcpIpConfig().setMembers(List.of("127.0.0.1:" + port, "127.0.0.1:" + (port + 1)));
        };
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
