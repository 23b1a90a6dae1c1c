package dev.sluice.gateway;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.spring.SluiceWebFilter;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;

/**
 * The {@code Sluice} gateway filter: a route's requests decided by Sluice policies ({@code sluice.policies}), with
 * what the servlet and WebFlux filters answer and {@code RequestRateLimiter} cannot: the {@code RateLimit-Policy},
 * {@code RateLimit} and {@code Retry-After} headers, 429 with the RFC 9457 problem body, and, when the store
 * cannot decide, the policy's failure mode ({@code allow} lets the request through, {@code deny} answers 503
 * with the temporary-reduced-capacity problem). Clients are identified as the filters identify them (the
 * socket peer, forwarding headers only from {@code sluice.client.trusted-proxies}, or the configured identity).
 *
 * <pre>
 * filters:
 *   - Sluice=per-client            # or: name: Sluice, args: {policies: "per-client, everyone"}
 * </pre>
 */
public class SluiceGatewayFilterFactory extends AbstractGatewayFilterFactory<SluiceGatewayFilterFactory.Config> {
    private final SluiceWebFilter decider;
    private final HttpRateLimiter rateLimiter;

    public SluiceGatewayFilterFactory(HttpRateLimiter rateLimiter) {
        super(Config.class);
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        this.decider = new SluiceWebFilter(rateLimiter, 0);
    }

    @Override
    public List<String> shortcutFieldOrder() {
        return List.of("policies");
    }

    /** @throws IllegalArgumentException when the route names no policy or one {@code sluice.policies} does not define */
    @Override
    public GatewayFilter apply(Config config) {
        List<String> policies = config.policyNames();
        if (policies.isEmpty()) {
            throw new IllegalArgumentException("the Sluice filter of route '" + config.getRouteId()
                    + "' names no policy; expected Sluice=<policy>[, <policy>...], names under sluice.policies "
                    + rateLimiter.config().policies().keySet());
        }
        for (String p : policies) {
            if (!rateLimiter.config().policies().containsKey(p)) {
                throw new IllegalArgumentException("the Sluice filter of route '" + config.getRouteId()
                        + "' names policy '" + p + "', which is not defined; defined policies (sluice.policies.<name>): "
                        + rateLimiter.config().policies().keySet());
            }
        }
        return (exchange, chain) -> decider.filter(exchange, chain::filter, policies);
    }

    /** The route's policies, comma-separated, decided in order. */
    public static class Config implements org.springframework.cloud.gateway.support.HasRouteId {
        private String policies = "";
        private String routeId;

        public String getPolicies() {
            return policies;
        }

        public void setPolicies(String policies) {
            this.policies = policies == null ? "" : policies;
        }

        List<String> policyNames() {
            return Arrays.stream(policies.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
        }

        @Override
        public void setRouteId(String routeId) {
            this.routeId = routeId;
        }

        @Override
        public String getRouteId() {
            return routeId;
        }
    }
}
