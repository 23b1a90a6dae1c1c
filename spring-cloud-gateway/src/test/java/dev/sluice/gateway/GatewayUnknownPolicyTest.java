package dev.sluice.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.gateway.app.GatewayApp;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringApplication;
import org.springframework.core.NestedExceptionUtils;

/**
 * A route that names a policy {@code sluice.policies} does not define fails start-up, in each form, naming the
 * route and the policy. Bug: {@code Sluice=per-client,nope} started (the shortcut bound only the first name),
 * and a route whose filter failed was only logged by the gateway, which then served without it.
 */
final class GatewayUnknownPolicyTest {
    private static final String ROUTE = "--spring.cloud.gateway.server.webflux.routes[0].";

    @ParameterizedTest
    @ValueSource(strings = {"filters[0]=Sluice=per-client,nope", "filters[0]=Sluice=nope",
            "filters[0].name=Sluice|filters[0].args.policies=per-client, nope",
            "filters[0].name=Sluice|filters[0].args.policies[0]=per-client|filters[0].args.policies[1]=nope",
            "filters[0].name=RequestRateLimiter|filters[0].args[sluice-rate-limiter.policy]=per-client, nope",
            "filters[0].name=RequestRateLimiter|filters[0].args[sluice-rate-limiter.policy]=nope"})
    void unknownPolicy_failsStartUp_namingRouteAndPolicy(String filter) throws Exception {
        List<String> args = new ArrayList<>(GatewayFormsTest.policies("per-client=10"));
        args.addAll(List.of("--server.port=" + GatewayFormsTest.freePort(), "--spring.main.web-application-type=reactive",
                ROUTE + "id=guarded", ROUTE + "uri=http://127.0.0.1:9", ROUTE + "predicates[0]=Path=/**"));
        for (String f : filter.split("\\|")) {
            args.add(ROUTE + f);
        }
        assertThatThrownBy(() -> SpringApplication.run(GatewayApp.class, args.toArray(String[]::new)).close())
                .satisfies(e -> assertThat(NestedExceptionUtils.getMostSpecificCause(e).getMessage())
                        .contains("route 'guarded'", "'nope', which is not defined", "[per-client]"));
    }
}
