package dev.sluice.gateway;

import dev.sluice.http.HttpRateLimiter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A {@code RateLimiter} for the gateway's {@code RequestRateLimiter} filter on Sluice policies, so the budget
 * lives in the application's Sluice store (Hazelcast, JCache, in-process) instead of Redis. The route names the
 * policies ({@code args: {rate-limiter: "#{@sluiceRateLimiter}", sluice-rate-limiter.policy: "per-client, tight"}});
 * the key resolver's key is keyed-hashed as Sluice's filters hash identities and counted under each policy, in
 * order, one permit a request (or {@code permits}), all or nothing: a refusal by a later policy gives back what
 * the earlier ones granted (the same sequence as the filters', {@link HttpRateLimiter#decideAsync(String, List,
 * long)}, so a policy in shadow mode never refuses here either). A name that {@code sluice.policies} does not
 * define fails the route, and so start-up.
 * A refusal carries the refusing policy's {@code RateLimit-Policy}, {@code RateLimit} and {@code Retry-After}
 * headers; the status and the empty body are {@code RequestRateLimiter}'s (use the {@code Sluice} filter for the
 * problem body). When the store cannot decide, the policy's failure mode answers: {@code allow} allows,
 * {@code deny} refuses (the gateway's 429, not a 503), {@code throw} fails the request. A policy with plans
 * ({@code plan-from}) fails the route: the limiter sees a key, never the request its plan is read from; the
 * {@code Sluice} filter decides such a policy.
 */
public class SluiceRateLimiter extends AbstractRateLimiter<SluiceRateLimiter.Config> {
    /** The prefix of the route's arguments for this limiter. */
    public static final String CONFIGURATION_PROPERTY_NAME = "sluice-rate-limiter";

    private final HttpRateLimiter rateLimiter;

    public SluiceRateLimiter(HttpRateLimiter rateLimiter, ConfigurationService configurationService) {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
    }

    /**
     * Binds a route's arguments, as the gateway does while it builds the route, and checks them then.
     *
     * @throws IllegalArgumentException if the route names no policy, or one {@code sluice.policies} does not define
     */
    @Override
    public void onApplicationEvent(FilterArgsEvent event) {
        super.onApplicationEvent(event);
        Config config = getConfig().get(event.getRouteId());
        if (config != null) {
            check(event.getRouteId(), config);
        }
    }

    private List<String> check(String routeId, Config config) {
        List<String> policies = config == null ? List.of() : config.policyNames();
        if (policies.isEmpty()) {
            throw new IllegalArgumentException("route '" + routeId + "' uses RequestRateLimiter on Sluice but gives no "
                    + CONFIGURATION_PROPERTY_NAME + ".policy; expected policies of sluice.policies "
                    + rateLimiter.config().policies().keySet());
        }
        for (String p : policies) {
            if (rateLimiter.limiter(p) == null) {
                throw new IllegalArgumentException("route '" + routeId + "' gives " + CONFIGURATION_PROPERTY_NAME
                        + ".policy '" + p + "', which is not defined; defined policies (sluice.policies.<name>): "
                        + rateLimiter.config().policies().keySet());
            }
            if (policies.indexOf(p) != policies.lastIndexOf(p)) {
                throw new IllegalArgumentException("route '" + routeId + "' gives " + CONFIGURATION_PROPERTY_NAME
                        + ".policy '" + p + "' twice");
            }
            if (rateLimiter.config().plans().containsKey(p)) {
                // The key resolver's key is all RequestRateLimiter hands on: no request to read a plan from.
                throw new IllegalArgumentException("route '" + routeId + "' gives " + CONFIGURATION_PROPERTY_NAME
                        + ".policy '" + p + "', whose limit is chosen per plan (" + rateLimiter.config().planSource(p)
                        + "), which RequestRateLimiter cannot tell: it passes the limiter a key and no request. Use"
                        + " the Sluice filter on this route (filters: - Sluice=" + p + ")");
            }
        }
        return policies;
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        Config config = getConfig().get(routeId);
        List<String> policies;
        try {
            policies = check(routeId, config);
        } catch (IllegalArgumentException e) {
            return Mono.error(e);
        }
        long permits = config.getPermits();
        return Mono.fromFuture(() -> rateLimiter.decideAsync(id, policies, permits, routeId)).map(decision -> {
            if (decision.proceeds()) {
                decision.release(); // a concurrency lease cannot outlive the call here: RequestRateLimiter has no end hook
                return new Response(true, Map.of());
            }
            Map<String, String> headers = new LinkedHashMap<>();
            decision.headers().forEach(h -> headers.put(h.getKey(), h.getValue()));
            return new Response(false, headers);
        }).flatMap(response -> response.isAllowed() ? Mono.just(response)
                // A refusal answered within the call that dispatched a keep-alive request Reactor Netty had held
                // back leaves the connection no longer read (reactor-netty#4361): the 429 is written off that call.
                : Mono.just(response).publishOn(Schedulers.parallel()));
    }

    /**
     * A route's arguments: {@code sluice-rate-limiter.policy} (one policy, or several comma-separated, decided in
     * order) and {@code sluice-rate-limiter.permits}.
     */
    public static class Config {
        private String policy;
        private long permits = 1;

        public String getPolicy() {
            return policy;
        }

        public Config setPolicy(String policy) {
            this.policy = policy;
            return this;
        }

        public long getPermits() {
            return permits;
        }

        public Config setPermits(long permits) {
            this.permits = permits;
            return this;
        }

        List<String> policyNames() {
            List<String> names = new ArrayList<>();
            if (policy != null) {
                for (String name : policy.split(",")) {
                    if (!name.isBlank()) {
                        names.add(name.strip());
                    }
                }
            }
            return names;
        }
    }
}
