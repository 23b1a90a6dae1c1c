package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.access.prepost.PreAuthorize;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.method.configuration.EnableMethodSecurity;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Sluice behind Spring Security on Spring MVC (Tomcat), as a Boot application secures itself: form login, HTTP
 * Basic and a JWT resource server in one chain, every request authenticated. Run in the {@code spring-security}
 * execution (Spring Boot's security auto-configuration on the class path).
 */
@EnabledIf("dev.sluice.spring.MvcSecurityTest#securityPresent")
final class MvcSecurityTest {
    private static ConfigurableApplicationContext app;
    private static int port;

    static boolean securityPresent() {
        return org.springframework.util.ClassUtils.isPresent(
                "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration", null);
    }

    @BeforeAll
    static void start() {
        app = new SpringApplicationBuilder(SecuredMvcApp.class).run(Secured.args());
        port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    /** Spring Security answered every form login itself (302) and Sluice, after its chain, never saw one. */
    @Test
    void formLogin_wrongPasswords_areAnswered429AfterTheLimit_andSoIsTheRightOne() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            statuses.add(Secured.login(port, "alice", "wrong-" + i).statusCode());
        }
        // Spring Security's own answer to a failed login (a redirect to /login?error, or 401 for a client that
        // is not a browser) five times, then Sluice's.
        assertThat(statuses.subList(0, 5)).allMatch(s -> s == 302 || s == 401);
        assertThat(statuses.subList(5, 7)).containsExactly(429, 429);
        assertThat(Secured.login(port, "alice", "secret").statusCode()).isEqualTo(429);
        assertThat(app.getBean(dev.sluice.http.HttpRateLimiter.class).statistics().get("login-limit").refused())
                .isEqualTo(3);
    }

    /** Spring Security answered every wrong Basic password 401 itself, never a 429. */
    @Test
    void httpBasic_wrongPasswords_areAnswered429AfterTheLimit() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            statuses.add(Secured.basic(port, "/basic/me", "bob", "guess-" + i));
        }
        assertThat(statuses).containsExactly(401, 401, 401, 401, 401, 429, 429);
    }

    @Test
    void bearerTokens_perClientLimit_isKeyedOnTheTokenSubject() throws Exception {
        List<Integer> first = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            first.add(Secured.bearer(port, "/api/me", "client-a"));
        }
        assertThat(first).containsExactly(200, 200, 200, 429);
        // Same address, another subject: its own budget, so the policy ran where the principal is known.
        assertThat(Secured.bearer(port, "/api/me", "client-b")).isEqualTo(200);
        assertThat(Secured.get(port, "/api/me", "Authorization", "Bearer not-a-token")).isEqualTo(401);
    }

    @Test
    void rateLimited_onAPreAuthorizeMethod_isEnforcedAndSecurityStillDenies() throws Exception {
        assertThat(Secured.basic(port, "/report", "alice", "secret")).isEqualTo(403);
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            statuses.add(Secured.basic(port, "/report", "admin", "secret"));
        }
        assertThat(statuses).containsExactly(200, 200, 429);
    }

    @Test
    void filters_sitEachSideOfTheSecurityChain() {
        assertThat(registration(app, "sluiceEarlyRateLimitFilter").getOrder()).isEqualTo(-101);
        assertThat(registration(app, "sluiceEarlyRateLimitFilter").isEnabled()).isTrue();
        assertThat(registration(app, "sluiceRateLimitFilter").getOrder()).isEqualTo(0);
    }

    @Test
    void principalPolicy_onTheLoginProcessingUrl_failsStartUpNamingTheFix() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(SecuredMvcApp.class).run(Secured.args(
                "--sluice.routes.login.policy=per-client")))
                .hasStackTraceContaining("policy 'per-client' (identity [principal]) is on route POST /login")
                .hasStackTraceContaining("sluice.policies.per-client.identity=address");
    }

    @Test
    void userOrder_afterTheChain_failsStartUp_unlessOverridden() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(SecuredMvcApp.class).run(Secured.args(
                "--sluice.filter.order=0")))
                .hasStackTraceContaining("policy 'login-limit' (identity [address]) runs after Spring Security's")
                .hasStackTraceContaining("sluice.filter.override-security-order=true");
        try (ConfigurableApplicationContext overridden = new SpringApplicationBuilder(SecuredMvcApp.class)
                .run(Secured.args("--sluice.filter.order=0", "--sluice.filter.override-security-order=true"))) {
            assertThat(registration(overridden, "sluiceEarlyRateLimitFilter").isEnabled()).isFalse();
        }
    }

    private static FilterRegistrationBean<?> registration(ConfigurableApplicationContext context, String name) {
        return (FilterRegistrationBean<?>) context.getBean(name);
    }

    /** The application: its chain, users, a controller and a method-secured, rate-limited service. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableMethodSecurity
    static class SecuredMvcApp {
        @Bean
        SecurityFilterChain chain(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(a -> a.anyRequest().authenticated())
                    .formLogin(Customizer.withDefaults())
                    .httpBasic(Customizer.withDefaults())
                    .oauth2ResourceServer(o -> o.jwt(Customizer.withDefaults()))
                    .csrf(c -> c.disable())
                    .build();
        }

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("alice").password("{noop}secret").roles("USER").build(),
                    User.withUsername("bob").password("{noop}secret").roles("USER").build(),
                    User.withUsername("admin").password("{noop}secret").roles("ADMIN").build());
        }

        @Bean
        Reports reports() {
            return new Reports();
        }

        @Bean
        Controller controller(Reports reports) {
            return new Controller(reports);
        }
    }

    static class Reports {
        @PreAuthorize("hasRole('ADMIN')")
        @RateLimited(policy = "reports", key = "'principal:' + #user.name")
        public String run(Principal user) {
            return "report for " + user.getName();
        }
    }

    @RestController
    static class Controller {
        private final Reports reports;

        Controller(Reports reports) {
            this.reports = reports;
        }

        @GetMapping({"/api/me", "/basic/me"})
        String me(Principal user) {
            return user.getName();
        }

        @GetMapping("/report")
        String report(Principal user) {
            return reports.run(user);
        }
    }
}
