package dev.sluice.spring;

import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.Route;
import dev.sluice.http.SluiceSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where each policy of {@code sluice.routes} is decided when Spring Security's filter chain runs in the same
 * application, and the check that the filters registered say the same.
 *
 * <p>Spring Security answers some requests itself, inside its chain: a form login's processing URL (a redirect
 * whether the password was right or wrong), a wrong HTTP Basic password or a bad bearer token (401). A filter
 * after the chain never sees those requests, so a login limit there counts nothing. A filter before the chain
 * sees every request, but no authenticated principal yet. So a policy keyed on something the client sends (its
 * address, a header, or one budget for all) is decided ahead of the chain, and a policy keyed on the principal
 * after it: two filters, one each side, sharing one {@code HttpRateLimiter} (budgets and statistics). Without a
 * security chain, one filter decides every policy, as before.
 *
 * <p>A user-set {@code sluice.filter.order} puts every policy at that order; if that contradicts the rule above
 * for a policy that some route uses, start-up fails, unless {@code sluice.filter.override-security-order} says
 * that is meant. A principal-keyed policy on a route that the chain answers itself can never apply, so it fails
 * start-up too, whatever the order.
 */
final class SluiceFilterPlacement {
    /** The name both Spring Boot and Spring Security give the security filter. */
    static final String SECURITY_FILTER_NAME = "springSecurityFilterChain";
    /** The name of the filter that decides every policy, or those keyed on the principal. */
    static final String FILTER_NAME = "sluiceRateLimitFilter";
    /** The name of the filter that decides, ahead of Spring Security's chain, the policies keyed on the request. */
    static final String EARLY_FILTER_NAME = "sluiceEarlyRateLimitFilter";
    /** The order of Sluice's only filter when neither Spring Security nor the user places it. */
    static final int DEFAULT_ORDER = 0;

    private final Map<String, List<String>> identities;
    private final Set<String> plansFromPrincipal;
    private final Set<String> routed;
    private final Integer userOrder;
    private final boolean override;
    private final Integer securityOrder;

    /**
     * @param securityOrder the order of Spring Security's filter, or null where the application has none
     */
    SluiceFilterPlacement(SluiceProperties properties, HttpRateLimiterConfig config, Integer securityOrder) {
        this.identities = identities(properties, config);
        this.plansFromPrincipal = plansFromPrincipal(properties);
        this.routed = new LinkedHashSet<>();
        for (Route r : config.routes()) {
            routed.addAll(r.policies());
        }
        this.userOrder = properties.getFilter().getOrder();
        this.override = properties.getFilter().isOverrideSecurityOrder();
        this.securityOrder = securityOrder;
    }

    /**
     * The identity names of each policy (its own, else {@code sluice.client.identity}, else the address), or
     * {@code [custom]} for a policy that a {@link HttpRateLimiterConfig} bean of the application defines.
     */
    static Map<String, List<String>> identities(SluiceProperties properties, HttpRateLimiterConfig config) {
        SluiceSettings.ClientSettings client = properties.getClient();
        List<String> fallback = client.getIdentity() != null && !client.getIdentity().isEmpty()
                ? client.getIdentity()
                : client.getApiKeyHeader() != null ? List.of("api-key") : List.of("address");
        Map<String, List<String>> identities = new LinkedHashMap<>();
        for (String name : config.policies().keySet()) {
            SluiceSettings.PolicySettings p = properties.getPolicies().get(name);
            if (p == null) {
                identities.put(name, List.of("custom"));
            } else {
                identities.put(name, p.getIdentity() != null && !p.getIdentity().isEmpty() ? p.getIdentity() : fallback);
            }
        }
        return identities;
    }

    /** The identity names of {@code policy}, as {@link #identities} gives them. */
    List<String> identity(String policy) {
        return identities.getOrDefault(policy, List.of("custom"));
    }

    /**
     * Whether {@code policy} needs the authenticated principal: keyed on it (alone or first among others), or
     * defined by the application in Java, where the resolver may read it (so it keeps the old place, after the
     * chain).
     */
    boolean needsPrincipal(String policy) {
        List<String> identity = identity(policy);
        return identity.contains("principal") || identity.contains("custom") || plansFromPrincipal.contains(policy);
    }

    /** The policies whose plan is read from the principal or an application bean (which may read it). */
    private static Set<String> plansFromPrincipal(SluiceProperties properties) {
        Set<String> policies = new LinkedHashSet<>();
        properties.getPolicies().forEach((name, p) -> {
            String from = p.getPlanFrom() == null ? "" : p.getPlanFrom().strip().toLowerCase(java.util.Locale.ROOT);
            if (p.getPlans() != null && !from.startsWith("header:")) {
                policies.add(name);
            }
        });
        return policies;
    }

    /** Whether two filters run, one each side of Spring Security's chain. */
    boolean split() {
        return securityOrder != null && userOrder == null;
    }

    /** Whether {@code policy} is decided by the filter ahead of the security chain. */
    boolean early(String policy) {
        return split() && !needsPrincipal(policy);
    }

    /** The order of the filter ahead of the security chain. */
    int earlyOrder() {
        return securityOrder == Integer.MIN_VALUE ? securityOrder : securityOrder - 1;
    }

    /** The order of {@link #FILTER_NAME}: the user's, or after the security chain, or {@link #DEFAULT_ORDER}. */
    int order() {
        if (userOrder != null) {
            return userOrder;
        }
        if (securityOrder == null) {
            return DEFAULT_ORDER;
        }
        return Math.max(DEFAULT_ORDER, securityOrder == Integer.MAX_VALUE ? securityOrder : securityOrder + 1);
    }

    /** Where each routed policy is decided, for the start-up report. */
    String place(String policy) {
        if (securityOrder == null) {
            return "filter order " + order();
        }
        return early(policy) ? "before Spring Security (filter order " + earlyOrder() + ")"
                : "after Spring Security (filter order " + order() + ")";
    }

    /**
     * Checks the filters as the server will run them.
     *
     * @param sluiceBeforeSecurity for each of Sluice's filters that runs ({@link #FILTER_NAME},
     *     {@link #EARLY_FILTER_NAME}), whether it runs before the security filter
     * @throws InvalidSluiceConfigurationException naming the policy, where it runs and the fix
     */
    void check(Map<String, Boolean> sluiceBeforeSecurity) {
        if (securityOrder == null || override) {
            return;
        }
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Boolean> filter : sluiceBeforeSecurity.entrySet()) {
            boolean before = filter.getValue();
            for (String policy : routed) {
                boolean decidedHere = split()
                        ? filter.getKey().equals(EARLY_FILTER_NAME) == early(policy)
                        : filter.getKey().equals(FILTER_NAME);
                if (!decidedHere) {
                    continue;
                }
                if (before && plansFromPrincipal.contains(policy)) {
                    problems.add("policy '" + policy + "' (plans from sluice.policies." + policy + ".plan-from) runs"
                            + " before Spring Security's filter chain, where no request is authenticated yet, so every"
                            + " client gets the plan of a client without one");
                } else if (before && needsPrincipal(policy) && identity(policy).contains("principal")) {
                    problems.add("policy '" + policy + "' (identity " + identity(policy) + ") runs before Spring"
                            + " Security's filter chain, where no request is authenticated yet, so every client is"
                            + " counted by its address");
                } else if (!before && !needsPrincipal(policy)) {
                    problems.add("policy '" + policy + "' (identity " + identity(policy) + ") runs after Spring"
                            + " Security's filter chain, which answers logins, wrong HTTP Basic passwords and bad"
                            + " bearer tokens itself, so those requests are never counted");
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidSluiceConfigurationException("invalid property sluice.filter.order="
                    + (userOrder == null ? "(default)" : userOrder) + " against Spring Security's filter (order "
                    + securityOrder + "): " + String.join("; ", problems) + ". Remove sluice.filter.order so that"
                    + " Sluice runs each policy where its identity is known, or set"
                    + " sluice.filter.override-security-order=true to keep this order", null);
        }
    }

    /**
     * Fails start-up for a principal-keyed policy on an exact route that the security chain answers itself.
     *
     * @param answeredBySecurity whether the chain answers a request of this method and path itself
     * @throws InvalidSluiceConfigurationException naming the route, the policy and the fix
     */
    void checkRoutes(HttpRateLimiterConfig config, java.util.function.BiPredicate<String, String> answeredBySecurity) {
        for (Route r : config.routes()) {
            if (r.pattern().contains("*")) {
                continue; // a prefix also covers what the chain does not answer
            }
            for (String policy : r.policies()) {
                if (!identity(policy).contains("principal")) {
                    continue;
                }
                Set<String> methods = r.methods().isEmpty() ? Set.of("POST", "GET", "PUT") : r.methods();
                for (String method : methods) {
                    if (answeredBySecurity.test(method, r.pattern())) {
                        throw new InvalidSluiceConfigurationException("policy '" + policy + "' (identity "
                                + identity(policy) + ") is on route " + method + " " + r.pattern() + ", which"
                                + " Spring Security's filter chain answers itself (a login processing URL): no"
                                + " principal is known there and the request never reaches an application filter."
                                + " Key the policy on the address instead (sluice.policies." + policy
                                + ".identity=address), or use a second policy keyed on the address for this route",
                                null);
                    }
                }
            }
        }
    }
}
