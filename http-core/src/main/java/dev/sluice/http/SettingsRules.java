package dev.sluice.http;

import static dev.sluice.http.PropertiesReader.POLICIES;
import static dev.sluice.http.PropertiesReader.PREFIX;
import static dev.sluice.http.PropertiesReader.ROUTES;
import static dev.sluice.http.SettingText.quote;

import dev.sluice.http.SluiceSettings.CapacitySettings;
import dev.sluice.http.SluiceSettings.ClientSettings;
import dev.sluice.http.SluiceSettings.PolicySettings;
import dev.sluice.http.SluiceSettings.RouteSettings;
import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.AlgorithmDescription.Parameter;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.IllegalParameterException;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.Plans;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Turns {@link SluiceSettings} into a {@link HttpRateLimiterConfig.Builder}, with the rules no type can state
 * (ranges, what applies to which algorithm, names that must exist). Every error names the property, its value (as
 * written, when the source can say, else as the setting holds it) and what is allowed.
 */
final class SettingsRules {
    private static final String IDENTITY = PREFIX + "client.identity";

    /**
     * Numeric ids in numeric order first, then the others alphabetically: the order errors are reported in.
     * Routes are tried by specificity, whatever their ids.
     */
    private static final Comparator<String> ROUTE_ORDER = (a, b) -> {
        boolean na = a.chars().allMatch(Character::isDigit) && a.length() < 10;
        boolean nb = b.chars().allMatch(Character::isDigit) && b.length() < 10;
        if (na && nb) {
            return Integer.compare(Integer.parseInt(a), Integer.parseInt(b));
        }
        return na ? -1 : nb ? 1 : a.compareTo(b);
    };

    private final Function<String, String> written;

    private SettingsRules(Function<String, String> written) {
        this.written = written;
    }

    /**
     * Adds what {@code settings} set to {@code builder}; {@code written} gives a property's value as written, or
     * null, for messages.
     */
    static void apply(SluiceSettings settings, Function<String, String> written, HttpRateLimiterConfig.Builder builder) {
        new SettingsRules(written).apply(settings, builder);
    }

    private void apply(SluiceSettings s, HttpRateLimiterConfig.Builder builder) {
        ClientSettings client = s.getClient();
        String base = PREFIX + "client.";
        if (client.getIdentity() != null) {
            builder.identityNames(identity(IDENTITY, client.getIdentity()));
        }
        if (client.getApiKeyHeader() != null) {
            builder.apiKeyHeader(client.getApiKeyHeader().isEmpty() ? null
                    : checkHeaderName(base + "api-key-header", client.getApiKeyHeader()));
        }
        if (client.getTrustedProxies() != null) {
            builder.trustedProxies(trustedProxies(base + "trusted-proxies", client.getTrustedProxies(),
                    client.isAllowTrustAll()));
        }
        builder.ipv6Prefix((int) range(base + "ipv6-prefix", client.getIpv6Prefix()));
        if (client.getIdentitySecret() != null) {
            builder.identitySecret(base + "identity-secret", client.getIdentitySecret());
        }
        builder.strictMatching(s.isStrictMatching());
        builder.shadow(s.isShadow());
        builder.headers(s.getHeaders().isEnabled());
        builder.partitionKeys(s.getHeaders().isPartitionKey());
        builder.legacyHeaders(s.getHeaders().isLegacy());
        if (s.getProblem().getType() == null) {
            throw new IllegalArgumentException("missing property " + PREFIX + "problem.type; expected a URI such as"
                    + " about:blank");
        }
        builder.problemType(s.getProblem().getType());
        builder.problemDecisions(s.getProblem().isDecisions());
        builder.refusalTrace((int) range(PREFIX + "trace.refused-requests", s.getTrace().getRefusedRequests()));
        if (s.getCapacity().anySet()) {
            builder.capacity(capacity(s.getCapacity()));
        }
        Map<String, LimitSpec> limits = new LinkedHashMap<>();
        for (Map.Entry<String, PolicySettings> e : new TreeMap<>(s.getPolicies()).entrySet()) {
            RateLimitPolicy policy = policy(e.getKey(), e.getValue());
            builder.policy(policy);
            ResponseCost responseCost = responseCost(POLICIES + e.getKey() + ".", policy, e.getValue());
            if (responseCost != null) {
                builder.responseCost(policy.name(), responseCost);
            }
            limits.put(policy.name(), policy.spec());
            Plans plans = plans(e.getKey(), e.getValue());
            if (plans != null) {
                String property = POLICIES + e.getKey() + ".plan-from";
                String[] from = planFrom(property, e.getValue().getPlanFrom());
                builder.planFrom(policy.name(), plans, from[0], from[1], property,
                        shown(property, e.getValue().getPlanFrom()));
                // A route may cost no more than the smallest plan's limit.
                limits.put(policy.name(), plans.specs().values().stream()
                        .min(Comparator.comparingLong(LimitSpec::limit)).orElseThrow());
            }
        }
        Map<String, RouteSettings> routes = new TreeMap<>(ROUTE_ORDER);
        routes.putAll(s.getRoutes());
        for (Map.Entry<String, RouteSettings> e : routes.entrySet()) {
            builder.route(route(e.getKey(), e.getValue(), limits));
        }
    }

    /** The value of {@code property} as written, quoted; else {@code value} as a property would write it. */
    private String shown(String property, Object value) {
        return quote(text(property, value));
    }

    private String text(String property, Object value) {
        String w = written.apply(property);
        if (w != null) {
            return w;
        }
        if (value instanceof Duration d && d.isNegative()) {
            return "-" + d.negated();
        }
        if (value instanceof List<?> list) {
            return String.join(",", list.stream().map(String::valueOf).toList());
        }
        if (value instanceof Enum<?> e) {
            return SettingText.written(e);
        }
        return String.valueOf(value);
    }

    /** {@code value} within the range the reader allows for the setting {@code property} names. */
    private long range(String property, long value) {
        long[] range = SettingText.RANGES.get(property.substring(property.lastIndexOf('.') + 1));
        if (value < range[0] || value > range[1]) {
            throw new IllegalArgumentException("invalid property " + property + "=" + shown(property, value)
                    + "; expected a whole number between " + range[0] + " and " + range[1]);
        }
        return value;
    }

    /** Refuses {@code setting} of a policy of {@code algorithm} unless it applies to that algorithm. */
    private static void checkAppliesTo(String base, String setting, String shownValue, String algorithm) {
        Set<String> specKeys = PropertiesReader.ALGORITHM_KEYS.get(algorithm);
        if (!PropertiesReader.COMMON_POLICY_KEYS.contains(setting) && !specKeys.contains(setting)) {
            List<String> allowed = new ArrayList<>(specKeys);
            allowed.addAll(PropertiesReader.COMMON_POLICY_KEYS);
            allowed.sort(null);
            throw new IllegalArgumentException("unknown property " + base + setting + "=" + shownValue
                    + " for algorithm " + algorithm + "; expected one of " + allowed);
        }
    }

    /** The algorithm a policy names, in any case. */
    private AlgorithmDescription algorithm(String property, String name) {
        String wanted = name.strip().toLowerCase(Locale.ROOT);
        return PropertiesReader.POLICY_ALGORITHMS.stream().filter(d -> d.name().equals(wanted)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("invalid property " + property + "="
                        + shown(property, name) + "; expected one of " + PropertiesReader.ALGORITHMS));
    }

    private RateLimitPolicy policy(String name, PolicySettings settings) {
        String base = POLICIES + name + ".";
        if (settings.getAlgorithm() == null) {
            throw new IllegalArgumentException("missing property " + base + "algorithm; expected one of "
                    + PropertiesReader.ALGORITHMS);
        }
        AlgorithmDescription description = algorithm(base + "algorithm", settings.getAlgorithm());
        String algorithm = description.name();
        Map<String, Object> set = new LinkedHashMap<>();
        for (PropertiesReader.Setting setting : PropertiesReader.settings(PolicySettings.class).values()) {
            Object value = setting.get(settings);
            if (value != null && !setting.name().equals("algorithm")) {
                set.put(setting.name(), value);
                checkAppliesTo(base, setting.name(), shown(base + setting.name(), value), algorithm);
            }
        }
        Policy p = new Policy(base, algorithm, set);
        Plans plans = plans(name, settings);
        LimitSpec spec = plans != null ? plans.primarySpec() : spec(p, description);
        LimiterOptions.Builder options = RateLimitPolicy.EDGE_DEFAULTS.toBuilder();
        if (settings.getQueueLimit() != null) {
            options.queueLimit(p.number("queue-limit"));
        }
        if (settings.getMaxRetries() != null) {
            options.maxRetries((int) p.number("max-retries"));
        }
        if (settings.getDecisionTimeout() != null) {
            Duration timeout = p.duration("decision-timeout");
            try {
                options.decisionTimeout(timeout);
            } catch (IllegalArgumentException e) {
                throw p.error("decision-timeout", e.getMessage());
            }
        }
        if (settings.getFailureMode() != null) {
            options.failureMode(settings.getFailureMode());
        }
        if (settings.getDurability() != null) {
            options.durability(settings.getDurability());
        }
        if (settings.getFallbackReplicas() != null) {
            options.fallbackReplicas((int) p.number("fallback-replicas"));
        }
        RateLimitPolicy policy;
        try {
            policy = new RateLimitPolicy(name, spec, options.build());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid policy name in " + base + "*: " + e.getMessage(), e);
        }
        if (settings.getIdentity() != null) {
            policy = policy.withIdentity(identity(base + "identity", settings.getIdentity()));
        }
        if (settings.getShadow() != null) {
            policy = policy.withShadow(settings.getShadow());
        }
        return policy;
    }

    /** How a policy settles from the response ({@code count-statuses}, {@code cost-header}), or null if it does not. */
    private ResponseCost responseCost(String base, RateLimitPolicy policy, PolicySettings settings) {
        if (settings.getCountStatuses() == null && settings.getCostHeader() == null) {
            return null;
        }
        String first = base + (settings.getCountStatuses() != null ? "count-statuses" : "cost-header");
        if (policy.spec() instanceof LimitSpec.Concurrency) {
            throw new IllegalArgumentException("invalid property " + first + "=" + shown(first, settings.getCountStatuses()
                    != null ? settings.getCountStatuses() : settings.getCostHeader()) + "; a concurrency policy holds"
                    + " its permits while the request runs and is not settled from the response");
        }
        Set<Integer> statuses = new java.util.TreeSet<>();
        if (settings.getCountStatuses() != null) {
            String property = base + "count-statuses";
            for (String status : settings.getCountStatuses()) {
                int value;
                try {
                    value = Integer.parseInt(status.strip());
                } catch (NumberFormatException e) {
                    value = -1;
                }
                if (value < 100 || value > 599) {
                    throw new IllegalArgumentException("invalid property " + property + "="
                            + shown(property, settings.getCountStatuses()) + "; expected HTTP statuses between 100 and"
                            + " 599, separated by commas");
                }
                statuses.add(value);
            }
            if (statuses.isEmpty()) {
                throw new IllegalArgumentException("invalid property " + property + "=" + shown(property, "")
                        + "; expected HTTP statuses between 100 and 599, separated by commas");
            }
        }
        String header = settings.getCostHeader() == null ? null : settings.getCostHeader().strip();
        try {
            return new ResponseCost(statuses, header);
        } catch (IllegalArgumentException e) {
            String property = base + "cost-header";
            throw new IllegalArgumentException("invalid property " + property + "=" + shown(property, header)
                    + "; expected a header name, such as X-Sluice-Cost", e);
        }
    }

    /** The spec a policy's (or a plan's) limit settings give. */
    private static LimitSpec spec(Policy p, AlgorithmDescription description) {
        Map<String, Object> parameters = new LinkedHashMap<>();
        for (Parameter parameter : description.parameters()) {
            if (p.set.containsKey(parameter.setting()) || parameter.defaultValue().isEmpty()) {
                parameters.put(parameter.name(), parameter.isDuration() ? p.duration(parameter.setting())
                        : parameter.isCount() ? p.number(parameter.setting())
                        : p.require(parameter.setting(), parameter.expected())); // a choice or a zone: its own check
            }
        }
        try {
            return description.spec(parameters);
        } catch (IllegalArgumentException e) {
            throw p.specError(e, description);
        }
    }

    // ---- plans ----

    /** The kinds of {@code plan-from}. */
    private static final List<String> PLAN_SOURCES = List.of("claim", "attribute", "authority", "header", "bean");
    private static final String PLAN_FROM_EXPECTED = "claim:<name>, attribute:<name>, authority:<prefix>, header:<name>"
            + " (honoured only from sluice.client.trusted-proxies), bean or bean:<name>";

    /** A policy's plans, or null for a policy without; every error names the property. */
    private Plans plans(String name, PolicySettings settings) {
        String base = POLICIES + name + ".";
        if (settings.getPlans() == null || settings.getPlans().isEmpty()) {
            for (String setting : List.of("plan-from", "default-plan", "unknown-plan")) {
                Object value = setting.equals("plan-from") ? settings.getPlanFrom()
                        : setting.equals("default-plan") ? settings.getDefaultPlan() : settings.getUnknownPlan();
                if (value != null) {
                    throw new IllegalArgumentException("invalid property " + base + setting + "="
                            + shown(base + setting, value) + "; it applies to a policy with plans, and " + base
                            + "plans.<plan>.<setting> sets none");
                }
            }
            return null;
        }
        if (settings.getPlanFrom() == null) {
            throw new IllegalArgumentException("missing property " + base + "plan-from; a policy with plans needs"
                    + " where a client's plan is read: " + PLAN_FROM_EXPECTED);
        }
        planFrom(base + "plan-from", settings.getPlanFrom());
        AlgorithmDescription description = algorithm(base + "algorithm", settings.getAlgorithm());
        Map<String, Object> policySet = new LinkedHashMap<>();
        for (Parameter parameter : description.parameters()) {
            Object value = PropertiesReader.settings(PolicySettings.class).get(parameter.setting()).get(settings);
            if (value != null) {
                policySet.put(parameter.setting(), value);
            }
        }
        Plans.Builder plans = Plans.builder();
        for (Map.Entry<String, SluiceSettings.LimitSettings> e : settings.getPlans().entrySet()) {
            String planBase = base + "plans." + e.getKey() + ".";
            Map<String, Object> merged = new LinkedHashMap<>(policySet);
            Map<String, String> where = new LinkedHashMap<>();
            Set<String> allowed = PropertiesReader.ALGORITHM_KEYS.get(description.name());
            for (PropertiesReader.Setting setting : PropertiesReader.settings(SluiceSettings.LimitSettings.class).values()) {
                Object value = e.getValue() == null ? null : setting.get(e.getValue());
                if (value == null) {
                    continue;
                }
                if (!allowed.contains(setting.name())) {
                    throw new IllegalArgumentException("unknown property " + planBase + setting.name() + "="
                            + shown(planBase + setting.name(), value) + " for algorithm " + description.name()
                            + "; a plan sets its limit only: expected one of " + new java.util.TreeSet<>(allowed));
                }
                merged.put(setting.name(), value);
                where.put(setting.name(), planBase + setting.name());
            }
            LimitSpec spec = spec(new Policy(base, description.name(), merged, where, planBase), description);
            try {
                plans.plan(e.getKey(), spec);
            } catch (IllegalArgumentException invalid) {
                throw new IllegalArgumentException("invalid plan name in " + planBase + "*: " + invalid.getMessage(),
                        invalid);
            }
        }
        String unknown = settings.getUnknownPlan() == null ? "default"
                : settings.getUnknownPlan().strip().toLowerCase(Locale.ROOT);
        String defaultPlan = settings.getDefaultPlan() == null ? null : settings.getDefaultPlan().strip();
        Set<String> names = settings.getPlans().keySet();
        if (unknown.equals("refuse")) {
            if (defaultPlan != null) {
                throw new IllegalArgumentException("invalid property " + base + "default-plan="
                        + shown(base + "default-plan", defaultPlan) + " with " + base + "unknown-plan=refuse; set one"
                        + " of them");
            }
            plans.refuseUnknownPlans();
        } else if (unknown.equals("default")) {
            if (defaultPlan == null) {
                throw new IllegalArgumentException("missing property " + base + "default-plan; expected the plan of a"
                        + " client whose plan is unknown, one of " + names + ", or set " + base
                        + "unknown-plan=refuse");
            }
            if (!names.contains(defaultPlan)) {
                throw new IllegalArgumentException("invalid property " + base + "default-plan="
                        + shown(base + "default-plan", defaultPlan) + "; expected one of the plans " + names);
            }
            plans.defaultPlan(defaultPlan);
        } else {
            throw new IllegalArgumentException("invalid property " + base + "unknown-plan="
                    + shown(base + "unknown-plan", settings.getUnknownPlan()) + "; expected default or refuse");
        }
        return plans.build();
    }

    /** {@code plan-from} as its kind and name (null for {@code bean} alone). */
    private String[] planFrom(String property, String value) {
        String v = value.strip();
        int colon = v.indexOf(':');
        String kind = (colon < 0 ? v : v.substring(0, colon)).strip().toLowerCase(Locale.ROOT);
        String name = colon < 0 ? null : v.substring(colon + 1).strip();
        boolean named = name != null && !name.isEmpty();
        if (!PLAN_SOURCES.contains(kind) || (!named && !kind.equals("bean")) || (colon >= 0 && !named)) {
            throw new IllegalArgumentException("invalid property " + property + "=" + shown(property, value)
                    + "; expected " + PLAN_FROM_EXPECTED);
        }
        if (kind.equals("header") && !name.chars().allMatch(c -> (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
                || (c >= '0' && c <= '9') || "!#$%&'*+-.^_`|~".indexOf(c) >= 0)) {
            throw new IllegalArgumentException("invalid property " + property + "=" + shown(property, value)
                    + "; expected an HTTP header name after header:, such as header:X-Plan");
        }
        return new String[] {kind, name};
    }

    /** One policy's settings that are set, by name, with errors that name the property. */
    private final class Policy {
        private final String base;
        private final String algorithm;
        private final Map<String, Object> set;
        /** The property of each setting a plan set; the others are the policy's. */
        private final Map<String, String> where;
        /** The properties of a plan, or null for the policy's own limit. */
        private final String planBase;

        Policy(String base, String algorithm, Map<String, Object> set) {
            this(base, algorithm, set, Map.of(), null);
        }

        Policy(String base, String algorithm, Map<String, Object> set, Map<String, String> where, String planBase) {
            this.base = base;
            this.algorithm = algorithm;
            this.set = set;
            this.where = where;
            this.planBase = planBase;
        }

        private String property(String setting) {
            return where.getOrDefault(setting, base + setting);
        }

        Object require(String setting, String expected) {
            Object v = set.get(setting);
            if (v == null) {
                throw new IllegalArgumentException("missing property " + (planBase == null ? base + setting
                        : planBase + setting + " (or " + base + setting + " for every plan)") + "; expected "
                        + expected + " (required by algorithm " + algorithm + ")");
            }
            return v;
        }

        long number(String setting) {
            long[] range = SettingText.RANGES.get(setting);
            String expected = "a whole number between " + range[0] + " and " + range[1];
            long n = ((Number) require(setting, expected)).longValue();
            if (n < range[0] || n > range[1]) {
                throw error(setting, "expected " + expected);
            }
            return n;
        }

        Duration duration(String setting) {
            Duration d = (Duration) require(setting, SettingText.DURATION_EXPECTED);
            if (d.isNegative() || d.isZero()) {
                throw error(setting, "expected " + SettingText.DURATION_EXPECTED);
            }
            return d;
        }

        IllegalArgumentException error(String setting, String expected) {
            return new IllegalArgumentException("invalid property " + property(setting) + "="
                    + shown(property(setting), set.get(setting)) + "; " + expected);
        }

        /** A spec's own validation error, attributed to the property that sets the parameter it names. */
        IllegalArgumentException specError(IllegalArgumentException e, AlgorithmDescription description) {
            String property = e instanceof IllegalParameterException p ? description.parameters().stream()
                    .filter(d -> d.name().equals(p.parameter()) || d.component().equals(p.parameter()))
                    .map(Parameter::setting).findFirst().orElse(null) : null;
            if (property != null && set.containsKey(property)) {
                return new IllegalArgumentException("invalid property " + property(property) + "="
                        + shown(property(property), set.get(property)) + "; " + e.getMessage(), e);
            }
            Map<String, String> shownSet = new LinkedHashMap<>();
            set.forEach((k, v) -> shownSet.put(property(k).substring(base.length()), text(property(k), v)));
            return new IllegalArgumentException("invalid properties " + base + "* " + shownSet + "; " + e.getMessage(), e);
        }
    }

    private Route route(String id, RouteSettings settings, Map<String, LimitSpec> limits) {
        String base = ROUTES + id + ".";
        String pattern = settings.getPattern();
        if (pattern == null) {
            throw new IllegalArgumentException("missing property " + base + "pattern; expected a path such as /login"
                    + " or a prefix such as /api/*");
        }
        if (settings.getPolicy() == null || settings.getPolicy().isEmpty()) {
            throw new IllegalArgumentException("missing property " + base + "policy; expected the name of a policy");
        }
        List<String> names = settings.getPolicy().stream().map(String::strip).toList();
        String policy = text(base + "policy", settings.getPolicy());
        for (String name : names) {
            if (!limits.containsKey(name)) {
                throw new IllegalArgumentException("invalid property " + base + "policy=" + quote(policy)
                        + "; expected one of the defined policies " + limits.keySet()
                        + (names.size() > 1 ? ", or several separated by commas" : ""));
            }
        }
        Route route;
        try {
            route = new Route(pattern, Set.of(), names, 1);
        } catch (IllegalArgumentException e) {
            String what = e.getMessage().startsWith("route pattern") ? "pattern=" + shown(base + "pattern", pattern)
                    : "policy=" + quote(policy);
            throw new IllegalArgumentException("invalid property " + base + what + "; " + e.getMessage(), e);
        }
        List<String> methods = settings.getMethods();
        if (methods != null && !methods.isEmpty() && !(methods.size() == 1 && methods.get(0).isBlank())) {
            try {
                route = route.withMethods(methods.stream().map(String::strip).toArray(String[]::new));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid property " + base + "methods="
                        + shown(base + "methods", methods)
                        + "; expected a comma-separated list of HTTP methods such as GET,POST: " + e.getMessage(), e);
            }
        }
        long maxCost = names.stream().mapToLong(n -> limits.get(n).limit()).min().orElseThrow();
        Long cost = settings.getCost();
        if (cost != null) {
            if (cost < 1 || cost > maxCost) {
                throw new IllegalArgumentException("invalid property " + base + "cost=" + shown(base + "cost", cost)
                        + "; expected a whole number between 1 and " + maxCost + " (the "
                        + (names.size() > 1 ? "lowest limit of policies '" : "limit of policy '") + policy + "')");
            }
            route = route.withCost(cost);
        }
        return route;
    }

    /** The store's bound: at most one of keys, bytes and heap share (default {@link Capacity#defaults()}), a policy, cells. */
    private Capacity capacity(CapacitySettings settings) {
        String base = PREFIX + "capacity.";
        List<String> bounds = new ArrayList<>();
        if (settings.getHeapPercent() != null) {
            bounds.add(base + "heap-percent");
        }
        if (settings.getMaxBytes() != null) {
            bounds.add(base + "max-bytes");
        }
        if (settings.getMaxKeys() != null) {
            bounds.add(base + "max-keys");
        }
        if (bounds.size() > 1) {
            throw new IllegalArgumentException("set one of " + base + "max-keys, " + base + "max-bytes and " + base
                    + "heap-percent, not " + bounds);
        }
        Capacity capacity = Capacity.defaults();
        if (settings.getMaxKeys() != null) {
            capacity = Capacity.maxKeys(range(base + "max-keys", settings.getMaxKeys()));
        } else if (settings.getMaxBytes() != null) {
            capacity = Capacity.maxBytes(range(base + "max-bytes", settings.getMaxBytes()));
        } else if (settings.getHeapPercent() != null) {
            capacity = Capacity.heapPercent((int) range(base + "heap-percent", settings.getHeapPercent()));
        }
        if (settings.getPolicy() != null) {
            capacity = capacity.withPolicy(settings.getPolicy().policy());
        }
        if (settings.getOverflowCells() != null) {
            capacity = capacity.withOverflowCells((int) range(base + "overflow-cells", settings.getOverflowCells()));
        }
        return capacity;
    }

    private String checkHeaderName(String key, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean token = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!token) {
                throw new IllegalArgumentException("invalid property " + key + "=" + shown(key, value)
                        + "; expected an HTTP header name such as X-Api-Key, or empty to identify by address only");
            }
        }
        return value;
    }

    private TrustedProxies trustedProxies(String key, List<String> values, boolean allowTrustAll) {
        if (values.isEmpty() || (values.size() == 1 && values.get(0).isBlank())) {
            return TrustedProxies.none();
        }
        try {
            return TrustedProxies.of(values.stream().map(String::strip).toList(), allowTrustAll);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid property " + key + "=" + shown(key, values) + "; "
                    + e.getMessage(), e);
        }
    }

    private NamedIdentity identity(String key, List<String> values) {
        List<String> names = values.stream().map(v -> v.strip().toLowerCase(Locale.ROOT)).toList();
        for (String name : names.isEmpty() ? List.of("") : names) {
            if (!NamedIdentity.NAMES.contains(name) || names.indexOf(name) != names.lastIndexOf(name)) {
                throw new IllegalArgumentException("invalid property " + key + "=" + shown(key, values) + "; expected"
                        + " one of address, api-key, principal, global, or several of them separated by commas"
                        + " (tried in order, the address when none answers)");
            }
        }
        return new NamedIdentity(names, key);
    }
}
