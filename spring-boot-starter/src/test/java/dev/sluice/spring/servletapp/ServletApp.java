package dev.sluice.spring.servletapp;

import dev.sluice.spring.RateLimited;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.security.Principal;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** A Spring MVC application with no Sluice code but annotations: everything else is application.yml. */
@SpringBootApplication
public class ServletApp {

    /** Runs the application on its own, e.g. to measure its start-up (see the module's notes). */
    public static void main(String[] args) {
        SpringApplication.run(ServletApp.class, args);
    }

    /**
     * The application's authentication, reduced to what the tests need: the user named in {@code X-Test-User}
     * becomes the request's principal, as Spring Security's filters would make the authenticated one.
     */
    @Bean
    FilterRegistrationBean<Filter> testAuthentication() {
        Filter authenticate = (request, response, chain) -> {
            String user = ((HttpServletRequest) request).getHeader("X-Test-User");
            chain.doFilter(user == null ? request : new HttpServletRequestWrapper((HttpServletRequest) request) {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }
            }, response);
        };
        FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(authenticate);
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }

    @RestController
    static class Api {
        private final Reports reports;
        private final Exports exports;
        private final Archive archive;

        Api(Reports reports, Exports exports, Archive archive) {
            this.reports = reports;
            this.exports = exports;
            this.archive = archive;
        }

        @GetMapping("/api/hello")
        String hello() {
            return "hello";
        }

        @GetMapping("/open")
        String open() {
            return "open";
        }

        @GetMapping("/whoami")
        String whoami(HttpServletRequest request) {
            return request.getRemoteAddr();
        }

        @GetMapping("/reports")
        String report(Principal user) {
            return reports.build(user);
        }

        @GetMapping("/exports/{name}")
        String export(@PathVariable String name) {
            return exports.export(name);
        }

        @GetMapping("/archive/{name}")
        String archive(@PathVariable String name) {
            return archive.store(name);
        }
    }

    @Service
    public static class Reports {
        /** Keyed on the authenticated user: a path variable would let anyone spend another user's budget. */
        @RateLimited(policy = "reports", key = "'principal:' + #user.name")
        public String build(Principal user) {
            return "report for " + user.getName();
        }
    }

    /** Annotated on the interface, as OpenAPI generators write it. */
    public interface Exports {
        @RateLimited(policy = "reports", key = "'exports'")
        String export(String name);
    }

    @Service
    public static class CsvExports implements Exports {
        @Override
        public String export(String name) {
            return "export " + name;
        }
    }

    /** Annotated on the superclass method the bean overrides. */
    public abstract static class Store {
        @RateLimited(policy = "reports", key = "'archive'")
        public abstract String store(String name);
    }

    @Service
    public static class Archive extends Store {
        @Override
        public String store(String name) {
            return "stored " + name;
        }
    }
}
