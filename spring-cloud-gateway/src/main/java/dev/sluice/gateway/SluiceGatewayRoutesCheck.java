package dev.sluice.gateway;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.Route;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.cloud.gateway.route.RouteLocator;

/**
 * Builds the gateway's routes once at start-up, so that a route naming a policy that {@code sluice.policies}
 * does not define (in any form: {@code Sluice=a,b}, {@code args.policies}, {@code sluice-rate-limiter.policy})
 * fails start-up instead of the gateway logging the error and serving without the route. The gateway would
 * otherwise build its routes on the first refresh, where an error is only logged.
 *
 * <p>It then warns about a policy that both {@code sluice.routes} (decided by the application's Sluice
 * WebFilter, before any route) and a {@code RequestRateLimiter} route name, which charges it a second time (the
 * {@code Sluice} filter skips what {@code sluice.routes} charged, and warns as it builds its route).
 */
final class SluiceGatewayRoutesCheck implements SmartInitializingSingleton {
    private static final Log LOG = LogFactory.getLog(SluiceGatewayRoutesCheck.class);
    private static final Duration BUILD_TIMEOUT = Duration.ofSeconds(30);

    private final HttpRateLimiter rateLimiter;
    private final ObjectProvider<RouteLocator> routes;
    private final SluiceRateLimiter requestRateLimiter;
    private final boolean routesFiltered;

    SluiceGatewayRoutesCheck(HttpRateLimiter rateLimiter, ObjectProvider<RouteLocator> routes,
            SluiceRateLimiter requestRateLimiter, boolean routesFiltered) {
        this.rateLimiter = rateLimiter;
        this.routes = routes;
        this.requestRateLimiter = requestRateLimiter;
        this.routesFiltered = routesFiltered;
    }

    @Override
    public void afterSingletonsInstantiated() {
        RouteLocator locator = routes.getIfAvailable();
        if (locator == null) {
            return;
        }
        try {
            locator.getRoutes().collectList().block(BUILD_TIMEOUT);
        } catch (IllegalStateException timeout) {
            if (timeout.getMessage() == null || !timeout.getMessage().startsWith("Timeout")) {
                throw timeout;
            }
            LOG.warn("the gateway's routes were not built within " + BUILD_TIMEOUT.toSeconds() + " s at start-up;"
                    + " their Sluice policies are checked when they are built");
            return;
        }
        warnAboutSharedPolicies();
    }

    /** {@code RequestRateLimiter} has no exchange to tell what {@code sluice.routes} charged: warn only. */
    private void warnAboutSharedPolicies() {
        if (!routesFiltered || requestRateLimiter == null) {
            return;
        }
        Map<String, List<String>> patterns = new LinkedHashMap<>();
        for (Route r : rateLimiter.config().routes()) {
            for (String p : r.policies()) {
                patterns.computeIfAbsent(p, k -> new ArrayList<>()).add(r.pattern());
            }
        }
        requestRateLimiter.getConfig().forEach((routeId, config) -> {
            for (String p : config.policyNames()) {
                if (patterns.containsKey(p)) {
                    LOG.warn("policy '" + p + "' is named both by sluice.routes (pattern " + patterns.get(p)
                            + ") and by RequestRateLimiter of gateway route '" + routeId + "'; a request that"
                            + " both match is charged twice, so it gets half the limit. Name it in one place.");
                }
            }
        });
    }
}
