package dev.sluice.spring;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.RateLimitPolicy;
import dev.sluice.http.Route;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;

/**
 * What Sluice protects in this application, as configured: each route of {@code sluice.routes} with its methods and
 * policies, and for each policy its identity, where it runs (before or after Spring Security's filter chain), the
 * store and the failure mode; each place outside the routes that names a policy ({@link RateLimited} methods,
 * Spring Cloud Gateway route filters); and a warning for every configured policy that nothing uses, since such a
 * policy protects nothing. Logged once when the application is ready, and part of {@code /actuator/ratelimits}.
 * Thread-safe.
 */
public final class ProtectionReport {
    /** Gateway route filters in properties: {@code Sluice=a,b} (shortcut) or their {@code args}. */
    private static final Pattern GATEWAY_FILTER =
            Pattern.compile("(spring\\.cloud\\.gateway\\..*(?:filters|default-filters)\\[\\d+\\])(.*)");

    private final HttpRateLimiter rateLimiter;
    private final String backend;
    private final Map<String, List<String>> identities;
    private final Function<String, String> place;
    private final Map<String, Set<String>> uses = new LinkedHashMap<>();

    /**
     * @param identities the identity names of each policy
     * @param place where each policy runs in the web filters, or null where the application has none
     */
    ProtectionReport(HttpRateLimiter rateLimiter, String backend, Map<String, List<String>> identities,
            Function<String, String> place) {
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        this.backend = backend;
        this.identities = Map.copyOf(identities);
        this.place = place;
    }

    /**
     * Records that {@code where} (a gateway route defined in Java, say) decides {@code policy} outside
     * {@code sluice.routes}, so the report lists it and does not warn that the policy is unused.
     */
    public void use(String policy, String where) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(where, "where");
        synchronized (uses) {
            uses.computeIfAbsent(policy, p -> new LinkedHashSet<>()).add(where);
        }
    }

    /** The places outside {@code sluice.routes} that use each policy, by policy. */
    public Map<String, List<String>> uses() {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        synchronized (uses) {
            uses.forEach((p, w) -> copy.put(p, List.copyOf(w)));
        }
        return copy;
    }

    /** Each route: its pattern, methods, cost and each policy's description ({@link #policy(String)}). */
    public List<Map<String, Object>> routes() {
        List<Map<String, Object>> routes = new ArrayList<>();
        for (Route r : rateLimiter.config().routes()) {
            Map<String, Object> route = new LinkedHashMap<>();
            route.put("pattern", r.pattern());
            route.put("methods", r.methods().isEmpty() ? List.of("*") : List.copyOf(r.methods()));
            route.put("cost", r.cost());
            List<Map<String, Object>> policies = new ArrayList<>();
            for (String p : r.policies()) {
                policies.add(policy(p));
            }
            route.put("policies", policies);
            routes.add(route);
        }
        return routes;
    }

    /** One policy as the report shows it: name, limit, identity, where it runs, backend and failure mode. */
    public Map<String, Object> policy(String name) {
        Map<String, Object> policy = new LinkedHashMap<>();
        RateLimitPolicy p = rateLimiter.config().policies().get(name);
        policy.put("name", name);
        if (p != null) {
            policy.put("limit", p.spec().toString());
            policy.put("identity", identities.getOrDefault(name, List.of("custom")));
            String runs = place == null ? null : place.apply(name);
            if (runs != null) {
                policy.put("runs", runs);
            }
            policy.put("backend", backend);
            policy.put("failureMode", p.options().failureMode().name().toLowerCase(Locale.ROOT));
            policy.put("shadow", rateLimiter.config().shadow() || p.shadow());
            dev.sluice.limiter.Plans plans = rateLimiter.config().plans().get(name);
            if (plans != null) {
                Map<String, Object> specs = new LinkedHashMap<>();
                plans.specs().forEach((plan, spec) -> specs.put(plan, spec.toString()));
                policy.put("plans", specs);
                policy.put("planFrom", rateLimiter.config().planSource(name));
                policy.put("unknownPlan", plans.defaultPlan().orElse("refused"));
            }
        }
        return policy;
    }

    /** A warning for each configured policy that no route, gateway filter or {@link RateLimited} method uses. */
    public List<String> warnings() {
        Set<String> used = new LinkedHashSet<>();
        for (Route r : rateLimiter.config().routes()) {
            used.addAll(r.policies());
        }
        synchronized (uses) {
            used.addAll(uses.keySet());
        }
        List<String> warnings = new ArrayList<>();
        for (String name : rateLimiter.config().policies().keySet()) {
            if (!used.contains(name)) {
                warnings.add("Sluice: policy '" + name + "' is configured, but no route (sluice.routes), gateway"
                        + " filter or @RateLimited method uses it, so it limits nothing");
            }
        }
        return warnings;
    }

    /** The report as one log block. */
    String text() {
        StringBuilder b = new StringBuilder("Sluice protection (store: ").append(backend).append(")");
        List<Map<String, Object>> routes = routes();
        if (routes.isEmpty()) {
            b.append("\n  no routes (sluice.routes): the web filters limit nothing");
        }
        for (Map<String, Object> route : routes) {
            List<String> methods = cast(route.get("methods"));
            b.append("\n  ").append(String.join(",", methods)).append(' ')
                    .append(route.get("pattern"));
            for (Object o : (List<?>) route.get("policies")) {
                b.append("\n    ").append(line(cast(o), true, true));
            }
        }
        uses().forEach((policy, where) -> {
            for (String w : where) {
                // A gateway filter keys on the policy's identity; a method on its annotation's key, named in w.
                b.append("\n  ").append(w).append("\n    ").append(line(policy(policy), w.startsWith("gateway"), false));
            }
        });
        for (String w : warnings()) {
            b.append("\n  WARNING ").append(w.substring("Sluice: ".length()));
        }
        return b.toString();
    }

    private static String line(Map<String, Object> p, boolean identified, boolean routed) {
        StringBuilder b = new StringBuilder().append(p.get("name"));
        if (!p.containsKey("limit")) {
            return b.append(": no such policy").toString();
        }
        if (p.containsKey("plans")) {
            b.append(": plans ").append(p.get("plans")).append(" from ").append(p.get("planFrom"))
                    .append(" (unknown plan: ").append(p.get("unknownPlan")).append(')');
        } else {
            b.append(": ").append(p.get("limit"));
        }
        if (identified) {
            List<String> identity = cast(p.get("identity"));
            b.append(", identity ").append(String.join(",", identity));
        }
        if (routed && p.containsKey("runs")) {
            b.append(", ").append(p.get("runs"));
        }
        b.append(", failure mode ").append(p.get("failureMode"));
        if (Boolean.TRUE.equals(p.get("shadow"))) {
            b.append(", shadow (never refuses)");
        }
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object o) {
        return (T) o;
    }

    /**
     * Records the policies that Spring Cloud Gateway routes in {@code environment} name: a {@code Sluice} filter
     * in the shortcut form ({@code Sluice=per-client,tight}) or the long one ({@code name: Sluice} with
     * {@code args}), and a {@code RequestRateLimiter}'s {@code sluice-rate-limiter.policy}.
     */
    void recordGatewayRoutes(ConfigurableEnvironment environment) {
        Map<String, Map<String, String>> filters = new LinkedHashMap<>();
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (!(source instanceof EnumerablePropertySource<?> enumerable)) {
                continue;
            }
            for (String key : enumerable.getPropertyNames()) {
                Matcher m = GATEWAY_FILTER.matcher(key);
                if (m.matches()) {
                    Object value = enumerable.getProperty(key);
                    filters.computeIfAbsent(m.group(1), f -> new LinkedHashMap<>())
                            .putIfAbsent(m.group(2), value == null ? "" : value.toString());
                }
            }
        }
        filters.forEach((filter, parts) -> {
            String whole = parts.get("");
            if (whole != null && whole.startsWith("Sluice=")) {
                for (String p : whole.substring("Sluice=".length()).split(",")) {
                    if (!p.isBlank()) {
                        use(p.strip(), "gateway filter " + filter);
                    }
                }
            }
            boolean sluice = "Sluice".equals(parts.get(".name"));
            parts.forEach((rest, value) -> {
                // args[sluice-rate-limiter.policy], the form the gateway's documentation gives for a dotted key, too
                String path = rest.replace('[', '.').replace("]", "");
                if ((sluice && path.startsWith(".args.")) || path.endsWith(".sluice-rate-limiter.policy")) {
                    for (String p : value.split(",")) {
                        if (!p.isBlank()) {
                            use(p.strip(), "gateway filter " + filter);
                        }
                    }
                }
            });
        });
    }
}
