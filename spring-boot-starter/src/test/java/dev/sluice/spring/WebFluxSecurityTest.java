package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Sluice behind Spring Security on WebFlux (Netty): form login, HTTP Basic and a JWT resource server in one
 * {@code SecurityWebFilterChain}, every exchange authenticated. Run in the {@code spring-security} execution.
 */
@EnabledIf("dev.sluice.spring.MvcSecurityTest#securityPresent")
final class WebFluxSecurityTest {
    private static ConfigurableApplicationContext app;
    private static int port;

    @BeforeAll
    static void start() {
        app = reactive(Secured.args());
        port = Integer.parseInt(app.getEnvironment().getProperty("local.server.port"));
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    static ConfigurableApplicationContext reactive(String... args) {
        return new SpringApplicationBuilder(SecuredReactiveApp.class)
                .web(org.springframework.boot.WebApplicationType.REACTIVE).run(args);
    }

    /** Spring Security answered every form login itself and Sluice, after its chain, never saw one. */
    @Test
    void formLogin_wrongPasswords_areAnswered429AfterTheLimit_andSoIsTheRightOne() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            statuses.add(Secured.login(port, "alice", "wrong-" + i).statusCode());
        }
        assertThat(statuses.subList(0, 5)).allMatch(s -> s == 302 || s == 401);
        assertThat(statuses.subList(5, 7)).containsExactly(429, 429);
        java.net.http.HttpResponse<Void> right = Secured.login(port, "alice", "secret");
        assertThat(right.statusCode()).isEqualTo(429);
        // Refused before anything read the form: the connection does not carry the next request after it.
        assertThat(right.headers().firstValue("Connection")).hasValue("close");
    }

    @Test
    void httpBasic_wrongPasswords_areAnswered429AfterTheLimit() throws Exception {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            try {
                statuses.add(Secured.basic(port, "/basic/me", "bob", "guess-" + i));
            } catch (java.io.IOException e) {
                throw new AssertionError("request " + i + " after " + statuses + ": " + e, e);
            }
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
        assertThat(Secured.bearer(port, "/api/me", "client-b")).isEqualTo(200);
    }

    @Test
    void filters_sitEachSideOfTheSecurityChain() {
        assertThat(app.getBean("sluiceEarlyWebFilter", SluiceWebFilter.class).getOrder()).isEqualTo(-101);
        assertThat(app.getBean("sluiceWebFilter", SluiceWebFilter.class).getOrder()).isEqualTo(0);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class SecuredReactiveApp {
        @Bean
        SecurityWebFilterChain chain(ServerHttpSecurity http) {
            return http.authorizeExchange(a -> a.anyExchange().authenticated())
                    .formLogin(Customizer.withDefaults())
                    .httpBasic(Customizer.withDefaults())
                    .oauth2ResourceServer(o -> o.jwt(Customizer.withDefaults()))
                    .csrf(c -> c.disable())
                    .build();
        }

        @Bean
        MapReactiveUserDetailsService users() {
            return new MapReactiveUserDetailsService(
                    User.withUsername("alice").password("{noop}secret").roles("USER").build(),
                    User.withUsername("bob").password("{noop}secret").roles("USER").build());
        }

        @Bean
        Controller controller() {
            return new Controller();
        }
    }

    @RestController
    static class Controller {
        @GetMapping({"/api/me", "/basic/me"})
        Mono<String> me(Mono<Principal> user) {
            return user.map(Principal::getName);
        }
    }
}
