package dev.sluice.spring;

import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.PolicyStatistics;
import dev.sluice.http.RateLimitPolicy;
import dev.sluice.http.Route;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * {@code /actuator/ratelimits}: the backend, every policy (its spec, options, and what this instance
 * decided: the HTTP filters' counts and the limiter's), the routes, and the {@link ProtectionReport} under
 * {@code protection}. {@code /actuator/ratelimits/<policy>}
 * shows one policy, and {@code /actuator/ratelimits/<policy>/<client>} one client's key under it, read from the store
 * ({@link #key}). Statistics are this instance's, since it started; the budgets themselves live in the
 * store. Resetting a key is {@link ResettableRateLimitsEndpoint}'s, offered only when {@code sluice.reset-enabled}.
 */
@Endpoint(id = "ratelimits")
public class RateLimitsEndpoint {
    private final HttpRateLimiter rateLimiter;
    private final String backend;
    private final ProtectionReport report;

    public RateLimitsEndpoint(HttpRateLimiter rateLimiter, String backend) {
        this(rateLimiter, backend, null);
    }

    /** An endpoint that also shows {@code report} under {@code protection}, when not null. */
    public RateLimitsEndpoint(HttpRateLimiter rateLimiter, String backend, ProtectionReport report) {
        this.rateLimiter = rateLimiter;
        this.backend = backend;
        this.report = report;
    }

    @ReadOperation
    public Map<String, Object> rateLimits() {
        Map<String, Object> policies = new LinkedHashMap<>();
        Map<String, PolicyStatistics> statistics = rateLimiter.statistics();
        for (RateLimitPolicy p : rateLimiter.config().policies().values()) {
            policies.put(p.name(), policy(p, statistics.get(p.name())));
        }
        List<Map<String, Object>> routes = new ArrayList<>();
        for (Route r : rateLimiter.config().routes()) {
            Map<String, Object> route = new LinkedHashMap<>();
            route.put("pattern", r.pattern());
            route.put("methods", r.methods().isEmpty() ? List.of("*") : List.copyOf(r.methods()));
            route.put("policies", r.policies());
            route.put("cost", r.cost());
            routes.add(route);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("backend", backend);
        body.put("shadow", rateLimiter.config().shadow());
        body.put("policies", policies);
        body.put("routes", routes);
        if (report != null) {
            Map<String, Object> protection = new LinkedHashMap<>();
            protection.put("routes", report.routes());
            protection.put("uses", report.uses());
            protection.put("warnings", report.warnings());
            body.put("protection", protection);
        }
        return body;
    }

    /** One policy, or null (404) if there is none of that name. */
    @ReadOperation
    public Map<String, Object> policy(@Selector String name) {
        RateLimitPolicy p = rateLimiter.config().policies().get(name);
        return p == null ? null : policy(p, rateLimiter.statistics().get(name));
    }

    /**
     * One client's key under a policy, read where the key lives without consuming:
     * {@code GET /actuator/ratelimits/<policy>/<client>}, the client as the operator knows it
     * ({@code address:203.0.113.7}, {@code api-key:<key>}, {@code principal:alice}) and keyed by the policy's own
     * identity rule, as the edge keys its requests. Null (404) for an unknown policy.
     *
     * @throws InvalidEndpointRequestException (400) for a client of another form
     */
    @ReadOperation
    public Map<String, Object> key(@Selector String name, @Selector(match = Selector.Match.ALL_REMAINING) String[] client) {
        Client c = client(name, client);
        return c == null ? null : body(c, c.limiter().inspect(c.partition()));
    }

    /** An operator's client under a policy: the identity the edge derives, its partition, the policy's limiter. */
    record Client(String policy, String identity, String partition, PartitionedRateLimiter<String> limiter) {}

    /** The client named by the path segments after the policy, or null for an unknown policy. */
    Client client(String policy, String[] segments) {
        if (!rateLimiter.config().policies().containsKey(policy)) {
            return null;
        }
        String typed = String.join("/", segments);
        String identity;
        try {
            identity = rateLimiter.identityOf(policy, typed);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
        }
        return new Client(policy, identity, rateLimiter.partition(identity), rateLimiter.limiter(policy));
    }

    /** What a read or reset of a key answers. */
    static Map<String, Object> body(Client c, KeyState state) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("policy", c.policy());
        body.put("identity", c.identity());
        body.put("partition", c.partition());
        body.put("key", state.key());
        body.put("algorithm", state.algorithm());
        body.put("spec", state.spec().toString());
        body.put("limit", state.limit());
        body.put("remaining", state.remaining());
        body.put("resetAfter", state.resetAfter().toString());
        body.put("retryAfter", state.retryAfter().map(java.time.Duration::toString).orElse(null));
        body.put("readAt", state.readAt().toString());
        body.put("ownState", state.ownState());
        body.put("onOverflowCell", state.onOverflowCell());
        body.put("debt", state.debt());
        return body;
    }

    private Map<String, Object> policy(RateLimitPolicy p, PolicyStatistics requests) {
        Map<String, Object> policy = new LinkedHashMap<>();
        policy.put("algorithm", p.spec().algorithm());
        policy.put("limit", p.spec().limit());
        policy.put("spec", p.spec().toString());
        policy.put("shadow", rateLimiter.config().shadow() || p.shadow());
        policy.put("failureMode", p.options().failureMode().name().toLowerCase(java.util.Locale.ROOT));
        policy.put("decisionTimeout", p.options().decisionTimeout().toString());
        policy.put("queueLimit", p.options().queueLimit());
        policy.put("durability", p.options().durability().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
        p.options().fallbackReplicas().ifPresent(replicas -> policy.put("fallbackReplicas", replicas));
        Map<String, Object> counted = new LinkedHashMap<>();
        counted.put("granted", requests.granted());
        counted.put("refused", requests.refused());
        counted.put("shadowRefused", requests.shadowRefused());
        counted.put("degraded", requests.degraded());
        counted.put("unavailable", requests.unavailable());
        counted.put("skipped", requests.skipped());
        policy.put("requests", counted);
        PartitionedRateLimiter<String> limiter = rateLimiter.limiter(p.name());
        LimiterStatistics s = limiter.statistics();
        Map<String, Object> decided = new LinkedHashMap<>();
        decided.put("granted", s.granted());
        decided.put("refused", s.refused());
        decided.put("degraded", s.degraded());
        decided.put("queuedPermits", s.queuedPermits());
        policy.put("limiter", decided);
        return policy;
    }
}
