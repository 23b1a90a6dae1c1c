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
            limits.put(policy.name(), policy.spec());
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
        Map<String, Object> parameters = new LinkedHashMap<>();
        for (Parameter parameter : description.parameters()) {
            if (set.containsKey(parameter.setting()) || parameter.defaultValue().isEmpty()) {
                parameters.put(parameter.name(), parameter.isDuration() ? p.duration(parameter.setting())
                        : p.number(parameter.setting()));
            }
        }
        LimitSpec spec;
        try {
            spec = description.spec(parameters);
        } catch (IllegalArgumentException e) {
            throw p.specError(e, description);
        }
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

    /** One policy's settings that are set, by name, with errors that name the property. */
    private final class Policy {
        private final String base;
        private final String algorithm;
        private final Map<String, Object> set;

        Policy(String base, String algorithm, Map<String, Object> set) {
            this.base = base;
            this.algorithm = algorithm;
            this.set = set;
        }

        Object require(String setting, String expected) {
            Object v = set.get(setting);
            if (v == null) {
                throw new IllegalArgumentException("missing property " + base + setting + "; expected " + expected
                        + " (required by algorithm " + algorithm + ")");
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
            return new IllegalArgumentException("invalid property " + base + setting + "="
                    + shown(base + setting, set.get(setting)) + "; " + expected);
        }

        /** A spec's own validation error, attributed to the property that sets the parameter it names. */
        IllegalArgumentException specError(IllegalArgumentException e, AlgorithmDescription description) {
            String property = e instanceof IllegalParameterException p ? description.parameters().stream()
                    .filter(d -> d.name().equals(p.parameter()) || d.component().equals(p.parameter()))
                    .map(Parameter::setting).findFirst().orElse(null) : null;
            if (property != null && set.containsKey(property)) {
                return new IllegalArgumentException("invalid property " + base + property + "="
                        + shown(base + property, set.get(property)) + "; " + e.getMessage(), e);
            }
            Map<String, String> shownSet = new LinkedHashMap<>();
            set.forEach((k, v) -> shownSet.put(k, text(base + k, v)));
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
