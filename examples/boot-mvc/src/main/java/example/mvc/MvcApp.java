package example.mvc;

import dev.sluice.spring.RateLimited;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Two routes: {@code /api/*}, limited per client address by the servlet filter (application.yml), and
 * {@code /reports/{id}}, whose service method is limited by {@code @RateLimited}.
 */
@SpringBootApplication
public class MvcApp {

    public static void main(String[] args) {
        SpringApplication.run(MvcApp.class, args);
    }

    @RestController
    static class Api {
        private final Reports reports;

        Api(Reports reports) {
            this.reports = reports;
        }

        @GetMapping("/api/hello")
        String hello() {
            return "hello";
        }

        /** A refusal of the service answers 429 with the filter's headers and problem body. */
        @GetMapping("/reports/{id}")
        String report(@PathVariable String id) {
            return reports.build(id);
        }
    }

    @Service
    public static class Reports {
        // One budget for every caller here; key on who is authenticated in a real application, e.g.
        // key = "'principal:' + #p0.name" on a method taking the Principal.
        @RateLimited(policy = "reports")
        public String build(String id) {
            return "report " + id;
        }
    }
}
