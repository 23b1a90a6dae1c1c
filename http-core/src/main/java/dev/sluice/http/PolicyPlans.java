package dev.sluice.http;

import dev.sluice.limiter.Plans;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A policy's plans at the edge: the plans, where a request's plan is read, and the policy as each plan has it (its
 * name, options and identity, the plan's spec), which is what a decision under that plan reports in its headers and
 * problem body.
 *
 * <p>The policy's planned limiter is asked with partitions of strings: the hashed identity, then {@link #SEPARATOR}
 * and the plan when there is one. The identity is a base64url digest, so it never holds the separator; the limiter keys the
 * identity alone ({@link #identityOf}) and chooses the spec by the plan ({@link #planOf}).
 */
final class PolicyPlans {
    static final char SEPARATOR = '\u001F';

    private final Plans plans;
    private final PlanResolver resolver;
    private final String source;
    private final Map<String, RateLimitPolicy> views;
    private final Map<RateLimitPolicy, String> planOfView = new IdentityHashMap<>();
    private final Map<String, String> byLowerCase = new LinkedHashMap<>();

    /**
     * @param source how the plan is read, for messages and the start-up report ({@code claim:plan}, {@code bean})
     */
    PolicyPlans(RateLimitPolicy policy, Plans plans, PlanResolver resolver, String source) {
        this.plans = Objects.requireNonNull(plans, "plans");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.source = source;
        Map<String, RateLimitPolicy> byPlan = new LinkedHashMap<>();
        plans.specs().forEach((plan, spec) -> {
            RateLimitPolicy view = new RateLimitPolicy(policy.name(), spec, policy.options(), policy.identity(),
                    policy.shadow());
            byPlan.put(plan, view);
            planOfView.put(view, plan);
            byLowerCase.putIfAbsent(plan.toLowerCase(Locale.ROOT), plan);
        });
        this.views = Collections.unmodifiableMap(byPlan);
    }

    Plans plans() {
        return plans;
    }

    PlanResolver resolver() {
        return resolver;
    }

    String source() {
        return source;
    }

    /** The plan {@code plan} names: the plan of exactly that name, else of that name ignoring case; else {@code plan}. */
    String canonical(String plan) {
        if (plan == null || plans.specs().containsKey(plan)) {
            return plan;
        }
        String known = byLowerCase.get(plan.toLowerCase(Locale.ROOT));
        return known != null ? known : plan;
    }

    /** The policy as {@code plan} (a known plan) has it. */
    RateLimitPolicy view(String plan) {
        return views.get(plan);
    }

    /** The plan a view is of, or null for anything but one of this policy's views. */
    String planOf(RateLimitPolicy view) {
        return planOfView.get(view);
    }

    /** The partition the planned limiter is asked with. */
    static String partition(String identity, String plan) {
        return plan == null ? identity : identity + SEPARATOR + plan;
    }

    /** The identity part of a planned limiter's partition: what its key holds. */
    static String identityOf(String partition) {
        int at = partition.indexOf(SEPARATOR);
        return at < 0 ? partition : partition.substring(0, at);
    }

    /** The plan part of a planned limiter's partition, or null. */
    static String planOf(String partition) {
        int at = partition.indexOf(SEPARATOR);
        return at < 0 ? null : partition.substring(at + 1);
    }
}
