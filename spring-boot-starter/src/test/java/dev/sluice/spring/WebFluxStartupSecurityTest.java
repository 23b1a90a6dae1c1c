package dev.sluice.spring;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * WebFlux applications behind Spring Security that must not start. Kept apart from {@link WebFluxSecurityTest}
 * as a precaution: a reactive context that fails is closed with the Reactor Netty resources it made, which by
 * default are the JVM's shared ones, and the server of that test runs on them.
 */
@EnabledIf("dev.sluice.spring.MvcSecurityTest#securityPresent")
final class WebFluxStartupSecurityTest {

    @Test
    void principalPolicy_onTheLoginProcessingUrl_failsStartUpNamingTheFix() {
        assertThatThrownBy(() -> WebFluxSecurityTest.reactive(Secured.args("--sluice.routes.login.policy=per-client")))
                .hasStackTraceContaining("policy 'per-client' (identity [principal]) is on route POST /login")
                .hasStackTraceContaining("sluice.policies.per-client.identity=address");
    }

    @Test
    void userOrder_beforeTheChain_forAPrincipalPolicy_failsStartUp() {
        assertThatThrownBy(() -> WebFluxSecurityTest.reactive(Secured.args("--sluice.filter.order=-200")))
                .hasStackTraceContaining("policy 'per-client' (identity [principal]) runs before Spring Security's");
    }
}
