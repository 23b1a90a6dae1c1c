package dev.sluice.limiter;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Named specs of one policy, one per plan ("free": 100 an hour, "pro": 10,000), and what a client whose plan is
 * none of them gets: a named default plan, or a refusal. Immutable and validated when built.
 *
 * <p>A planned limiter ({@link RateLimiters#planned}) keeps one key per partition whatever its plan, so a client whose
 * plan changes keeps what it has consumed and the new plan's spec applies to it from the next decision (the rules of
 * a limit changed live: docs/semantics.md). That is why every plan must be able to read the others' state: the same
 * algorithm, and for a composite the same component algorithms in the same order; {@link Builder#build()} refuses
 * plans that differ, naming the plan and what differs.
 */
public final class Plans {
    private final Map<String, LimitSpec> specs;
    private final String defaultPlan;

    private Plans(Map<String, LimitSpec> specs, String defaultPlan) {
        this.specs = Collections.unmodifiableMap(new LinkedHashMap<>(specs));
        this.defaultPlan = defaultPlan;
    }

    /** An empty builder: add plans, then choose a default plan or refuse unknown plans. */
    public static Builder builder() {
        return new Builder();
    }

    /** Every plan's spec by plan name, in the order they were added. */
    public Map<String, LimitSpec> specs() {
        return specs;
    }

    /** The plan an unknown or missing plan is decided under; empty when unknown plans are refused. */
    public Optional<String> defaultPlan() {
        return Optional.ofNullable(defaultPlan);
    }

    /** True if a partition whose plan is unknown (or null) is refused rather than given the default plan. */
    public boolean refusesUnknownPlans() {
        return defaultPlan == null;
    }

    /**
     * The plan that decides a client of plan {@code plan}: that plan if it is one of these, else the default plan;
     * empty when unknown plans are refused.
     *
     * @param plan the client's plan, or null when it has none
     */
    public Optional<String> resolve(String plan) {
        if (plan != null && specs.containsKey(plan)) {
            return Optional.of(plan);
        }
        return Optional.ofNullable(defaultPlan);
    }

    /**
     * The spec of a plan.
     *
     * @throws IllegalArgumentException if there is no such plan
     */
    public LimitSpec spec(String plan) {
        LimitSpec spec = specs.get(Objects.requireNonNull(plan, "plan"));
        if (spec == null) {
            throw new IllegalArgumentException("no plan '" + plan + "'; plans: " + specs.keySet());
        }
        return spec;
    }

    /** The spec a planned limiter reports as its own: the default plan's, or the first plan's when there is none. */
    public LimitSpec primarySpec() {
        return defaultPlan != null ? specs.get(defaultPlan) : specs.values().iterator().next();
    }

    /** The smallest {@link LimitSpec#limit()} of any plan: the most permits one request may ask of every plan. */
    public long smallestLimit() {
        long min = Long.MAX_VALUE;
        for (LimitSpec s : specs.values()) {
            min = Math.min(min, s.limit());
        }
        return min;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Plans p && specs.equals(p.specs) && Objects.equals(defaultPlan, p.defaultPlan);
    }

    @Override
    public int hashCode() {
        return specs.hashCode() * 31 + Objects.hashCode(defaultPlan);
    }

    @Override
    public String toString() {
        return "Plans[" + specs + (defaultPlan == null ? ", unknown plans refused" : ", default " + defaultPlan) + "]";
    }

    /**
     * Why {@code spec} cannot share a key with {@code reference}, or null if it can: another algorithm, or a composite
     * of other component algorithms (a composite's state is its components' by position).
     */
    static String sharingProblem(LimitSpec reference, LimitSpec spec) {
        if (!reference.algorithm().equals(spec.algorithm())) {
            return "is " + spec.algorithm() + ", not " + reference.algorithm();
        }
        if (reference instanceof LimitSpec.AllOf a && spec instanceof LimitSpec.AllOf b) {
            List<String> mine = a.components().stream().map(LimitSpec::algorithm).toList();
            List<String> theirs = b.components().stream().map(LimitSpec::algorithm).toList();
            if (!mine.equals(theirs)) {
                return "is a composite of " + theirs + ", not of " + mine + " (components in the same order)";
            }
        }
        return null;
    }

    /** Builds {@link Plans}. Not thread-safe. */
    public static final class Builder {
        private final Map<String, LimitSpec> specs = new LinkedHashMap<>();
        private String defaultPlan;
        private boolean refuseUnknown;

        private Builder() {}

        /**
         * Adds a plan.
         *
         * @throws IllegalArgumentException if the name is empty, longer than 256 characters or holds control
         *     characters, or a plan of that name was already added
         */
        public Builder plan(String name, LimitSpec spec) {
            Keys.checkName("plan name", name);
            Objects.requireNonNull(spec, "spec");
            if (specs.putIfAbsent(name, spec) != null) {
                throw new IllegalArgumentException("plan '" + name + "' was already added");
            }
            return this;
        }

        /** Decides a client whose plan is unknown (or missing) under plan {@code name}, which must be added. */
        public Builder defaultPlan(String name) {
            this.defaultPlan = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Refuses a client whose plan is unknown (or missing): its lease is refused, with no retry-after. */
        public Builder refuseUnknownPlans() {
            this.refuseUnknown = true;
            return this;
        }

        /**
         * Builds the plans.
         *
         * @throws IllegalArgumentException if there is no plan; neither or both of a default plan and refusing
         *     unknown plans were chosen; the default plan is not among the plans; or a plan cannot share a key with
         *     the first plan (another algorithm, a composite of other components)
         */
        public Plans build() {
            if (specs.isEmpty()) {
                throw new IllegalArgumentException("plans need at least one plan");
            }
            if ((defaultPlan == null) == !refuseUnknown) {
                throw new IllegalArgumentException(defaultPlan == null
                        ? "choose what a client of an unknown plan gets: a default plan or a refusal"
                        : "a default plan ('" + defaultPlan + "') and refusing unknown plans exclude each other");
            }
            if (defaultPlan != null && !specs.containsKey(defaultPlan)) {
                throw new IllegalArgumentException("the default plan '" + defaultPlan + "' is not one of the plans "
                        + specs.keySet());
            }
            Map.Entry<String, LimitSpec> first = specs.entrySet().iterator().next();
            for (Map.Entry<String, LimitSpec> e : specs.entrySet()) {
                String problem = sharingProblem(first.getValue(), e.getValue());
                if (problem != null) {
                    throw new IllegalArgumentException("plan '" + e.getKey() + "' " + problem + " as plan '"
                            + first.getKey() + "' is: the plans of one policy share each client's key, so that a"
                            + " client whose plan changes keeps what it consumed, and must use the same algorithm");
                }
            }
            return new Plans(specs, defaultPlan);
        }
    }
}
