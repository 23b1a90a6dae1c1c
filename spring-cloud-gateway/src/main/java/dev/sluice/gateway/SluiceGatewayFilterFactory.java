package dev.sluice.gateway;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.spring.SluiceWebFilter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
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
 *   - Sluice=per-client, everyone     # or: name: Sluice, args: {policies: "per-client, everyone"}
 * </pre>
 *
 * <p>Every policy named is decided, in order, one permit each; a name that {@code sluice.policies} does not
 * define fails the route, and so start-up. A policy that {@code sluice.routes} already charged for the request
 * (the application's Sluice WebFilter runs before any route) is not charged again here: one permit per request
 * per policy.
 */
public class SluiceGatewayFilterFactory extends AbstractGatewayFilterFactory<SluiceGatewayFilterFactory.Config> {
    private static final Log LOG = LogFactory.getLog(SluiceGatewayFilterFactory.class);

    private final SluiceWebFilter decider;
    private final HttpRateLimiter rateLimiter;
    private final SluicePathGuard guard;

    /** A factory for an application in which no Sluice WebFilter decides {@code sluice.routes}. */
    public SluiceGatewayFilterFactory(HttpRateLimiter rateLimiter) {
        this(rateLimiter, null);
    }

    /**
     * A factory for an application whose Sluice WebFilter decides {@code sluice.routes} before any route, with
     * the guard that tells, per request, which policies it charged (null if no such WebFilter runs).
     */
    public SluiceGatewayFilterFactory(HttpRateLimiter rateLimiter, SluicePathGuard guard) {
        super(Config.class);
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        this.decider = new SluiceWebFilter(rateLimiter, 0);
        this.guard = guard;
    }

    /** One field that gathers every shortcut argument: {@code Sluice=a,b} names both policies. */
    @Override
    public ShortcutType shortcutType() {
        return ShortcutType.GATHER_LIST;
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
                    + "' names no policy; expected Sluice=<policy>[,<policy>...], names under sluice.policies "
                    + rateLimiter.config().policies().keySet());
        }
        for (String p : policies) {
            if (!rateLimiter.config().policies().containsKey(p)) {
                throw new IllegalArgumentException("the Sluice filter of route '" + config.getRouteId()
                        + "' names policy '" + p + "', which is not defined; defined policies (sluice.policies.<name>): "
                        + rateLimiter.config().policies().keySet());
            }
            if (policies.indexOf(p) != policies.lastIndexOf(p)) {
                throw new IllegalArgumentException("the Sluice filter of route '" + config.getRouteId()
                        + "' names policy '" + p + "' twice");
            }
        }
        shareWithRoutes(config.getRouteId(), policies);
        return (exchange, chain) -> {
            Collection<String> routed = exchange.getAttribute(SluicePathGuard.ROUTED_POLICIES);
            List<String> own = policies;
            if (routed != null && !routed.isEmpty()) {
                own = new ArrayList<>(policies);
                own.removeAll(routed);
                if (own.isEmpty()) {
                    return chain.filter(exchange);
                }
            }
            return decider.filter(exchange, chain::filter, own, config.getRouteId());
        };
    }

    /**
     * Warns about each policy that {@code sluice.routes} also names (so the WebFilter charges it before the route
     * runs) and has the guard tell the route, per request, whether it did, so it is charged once.
     */
    private void shareWithRoutes(String routeId, List<String> policies) {
        if (guard == null) {
            return;
        }
        Set<String> shared = new LinkedHashSet<>();
        for (dev.sluice.http.Route r : rateLimiter.config().routes()) {
            for (String p : r.policies()) {
                if (policies.contains(p)) {
                    shared.add(p);
                    LOG.warn("policy '" + p + "' is named both by sluice.routes (pattern " + r.pattern()
                            + ") and by the Sluice filter of gateway route '" + routeId + "'; a request that both"
                            + " match is charged once, by sluice.routes, and the route's filter skips it. Name it"
                            + " in one place.");
                }
            }
        }
        guard.shareWithRoutes(shared);
    }

    /** The route's policies, decided in order: a list, or one comma-separated text. */
    public static class Config implements org.springframework.cloud.gateway.support.HasRouteId {
        private List<String> policies = List.of();
        private String routeId;

        public List<String> getPolicies() {
            return policies;
        }

        public void setPolicies(List<String> policies) {
            this.policies = policies == null ? List.of() : List.copyOf(policies);
        }

        List<String> policyNames() {
            List<String> names = new ArrayList<>();
            for (String entry : policies) {
                for (String name : entry.split(",")) {
                    if (!name.isBlank()) {
                        names.add(name.strip());
                    }
                }
            }
            return names;
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
