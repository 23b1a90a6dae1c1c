package dev.sluice.spring.servletapp;

import dev.sluice.spring.RateLimited;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** A Spring MVC application with no Sluice code but one annotation: everything else is application.yml. */
@SpringBootApplication
public class ServletApp {

    /** Runs the application on its own, e.g. to measure its start-up (see the module's notes). */
    public static void main(String[] args) {
        SpringApplication.run(ServletApp.class, args);
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

        @GetMapping("/open")
        String open() {
            return "open";
        }

        @GetMapping("/reports/{user}")
        String report(@PathVariable String user) {
            return reports.build(user);
        }
    }

    @Service
    public static class Reports {
        @RateLimited(policy = "reports", key = "'user:' + #user")
        public String build(String user) {
            return "report for " + user;
        }
    }
}
