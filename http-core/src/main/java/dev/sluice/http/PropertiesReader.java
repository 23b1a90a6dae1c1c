package dev.sluice.http;

import dev.sluice.limiter.Durability;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.IllegalParameterException;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Reads {@code sluice.*} properties into a {@link RateLimitFilterConfig.Builder}. Every error names the
 * property, its value and what is allowed.
 */
final class PropertiesReader {
    static final String PREFIX = "sluice.";
    private static final String POLICIES = "sluice.policies.";
    private static final String ROUTES = "sluice.routes.";
    static final String API_KEY_HEADER = "sluice.client.api-key-header";
    static final String TRUSTED_PROXIES = "sluice.client.trusted-proxies";
    static final String ALLOW_TRUST_ALL = TrustedProxies.ALLOW_EVERY_ADDRESS_PROPERTY;
    static final String IDENTITY = "sluice.client.identity";
    static final String IPV6_PREFIX = "sluice.client.ipv6-prefix";
    static final String STRICT_MATCHING = "sluice.strict-matching";
    static final String SHADOW = "sluice.shadow";
    static final String HEADERS = "sluice.headers.enabled";
    static final String PARTITION_KEY = "sluice.headers.partition-key";
    static final String LEGACY_HEADERS = "sluice.headers.legacy";
    static final String PROBLEM_TYPE = "sluice.problem.type";
    static final String CAPACITY_MAX_KEYS = "sluice.capacity.max-keys";
    static final String CAPACITY_MAX_BYTES = "sluice.capacity.max-bytes";
    static final String CAPACITY_HEAP_PERCENT = "sluice.capacity.heap-percent";
    static final String CAPACITY_POLICY = "sluice.capacity.policy";
    static final String CAPACITY_OVERFLOW_CELLS = "sluice.capacity.overflow-cells";
    /** Every property outside {@code sluice.policies.} and {@code sluice.routes.}. */
    static final List<String> TOP_LEVEL = List.of(IDENTITY, API_KEY_HEADER, TRUSTED_PROXIES, ALLOW_TRUST_ALL, IPV6_PREFIX,
            STRICT_MATCHING, SHADOW, HEADERS, PARTITION_KEY, LEGACY_HEADERS, PROBLEM_TYPE, CAPACITY_MAX_KEYS,
            CAPACITY_MAX_BYTES, CAPACITY_HEAP_PERCENT, CAPACITY_POLICY, CAPACITY_OVERFLOW_CELLS);
    /** The words of {@value #CAPACITY_POLICY}, in the order they are listed. */
    static final Map<String, Capacity.Policy> CAPACITY_POLICIES = capacityPolicies();

    // A composite is no algorithm of its own here: a route names several policies instead.
    static final List<String> ALGORITHMS = LimitSpec.ALGORITHMS.stream().filter(a -> !a.equals(LimitSpec.ALL_OF)).toList();
    static final Set<String> COMMON_POLICY_KEYS = Set.of("algorithm", "queue-limit", "failure-mode",
            "decision-timeout", "max-retries", "durability", "identity", "shadow");
    static final Map<String, Set<String>> ALGORITHM_KEYS = Map.of(
            "fixed-window", Set.of("permit-limit", "window"),
            "sliding-window", Set.of("permit-limit", "window", "segments"),
            "sliding-log", Set.of("permit-limit", "window"),
            "sliding-counter", Set.of("permit-limit", "window"),
            "token-bucket", Set.of("permit-limit", "tokens-per-period", "replenishment-period"),
            "gcra", Set.of("permit-limit", "window", "burst"),
            "concurrency", Set.of("permit-limit", "lease-duration"));
    static final Set<String> ROUTE_KEYS = Set.of("pattern", "methods", "policy", "cost");

    /** Spec parameters ({@link IllegalParameterException#parameter()}) and the property that sets each. */
    private static final Map<String, String> SPEC_FIELDS = Map.ofEntries(
            Map.entry("permitLimit", "permit-limit"),
            Map.entry("tokenLimit", "permit-limit"),
            Map.entry("permitsPerPeriod", "permit-limit"),
            Map.entry("windowMillis", "window"),
            Map.entry("window", "window"),
            Map.entry("periodMillis", "window"),
            Map.entry("period", "window"),
            Map.entry("segmentsPerWindow", "segments"),
            Map.entry("tokensPerPeriod", "tokens-per-period"),
            Map.entry("replenishmentPeriod", "replenishment-period"),
            Map.entry("replenishmentPeriodMillis", "replenishment-period"),
            Map.entry("burst", "burst"),
            Map.entry("leaseDuration", "lease-duration"),
            Map.entry("leaseDurationMillis", "lease-duration"));

    private PropertiesReader() {}

    /** An error already attributed to its property. */
    private static final class PropertyException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        PropertyException(String message) {
            super(message);
        }
    }

    static void read(Properties properties, RateLimitFilterConfig.Builder builder) {
        Map<String, Map<String, String>> policies = new TreeMap<>();
        Map<String, Map<String, String>> routes = new TreeMap<>(ROUTE_ORDER);
        String proxies = null;
        boolean allowTrustAll = false;
        Map<String, String> capacity = new TreeMap<>();
        for (String key : properties.stringPropertyNames()) {
            if (!key.startsWith(PREFIX)) {
                continue;
            }
            String value = properties.getProperty(key).strip();
            switch (key) {
                case IDENTITY -> builder.identityNames(identity(key, value));
                case API_KEY_HEADER -> builder.apiKeyHeader(value.isEmpty() ? null : checkHeaderName(key, value));
                case TRUSTED_PROXIES -> proxies = value;
                case ALLOW_TRUST_ALL -> allowTrustAll = bool(key, value);
                case IPV6_PREFIX -> builder.ipv6Prefix((int) number(key, value, 1, 128));
                case STRICT_MATCHING -> builder.strictMatching(bool(key, value));
                case SHADOW -> builder.shadow(bool(key, value));
                case HEADERS -> builder.headers(bool(key, value));
                case PARTITION_KEY -> builder.partitionKeys(bool(key, value));
                case LEGACY_HEADERS -> builder.legacyHeaders(bool(key, value));
                case PROBLEM_TYPE -> builder.problemType(uri(key, value));
                case CAPACITY_MAX_KEYS, CAPACITY_MAX_BYTES, CAPACITY_HEAP_PERCENT, CAPACITY_POLICY,
                        CAPACITY_OVERFLOW_CELLS -> capacity.put(key, value);
                default -> {
                    if (key.startsWith(POLICIES)) {
                        group(policies, key, POLICIES, value, "sluice.policies.<name>.<setting>");
                    } else if (key.startsWith(ROUTES)) {
                        // A pattern is checked as written: trimming would accept one that can never match.
                        group(routes, key, ROUTES, key.endsWith(".pattern") ? properties.getProperty(key) : value,
                                "sluice.routes.<id>.<setting>");
                    } else {
                        throw new IllegalArgumentException("unknown property " + key + "=" + quote(value)
                                + "; expected sluice.policies.<name>.<setting>, sluice.routes.<id>.<setting> or one"
                                + " of " + TOP_LEVEL);
                    }
                }
            }
        }
        if (proxies != null) {
            builder.trustedProxies(trustedProxies(TRUSTED_PROXIES, proxies, allowTrustAll));
        }
        if (!capacity.isEmpty()) {
            builder.capacity(capacity(capacity));
        }
        Map<String, LimitSpec> limits = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, String>> e : policies.entrySet()) {
            RateLimitPolicy policy = policy(e.getKey(), e.getValue());
            builder.policy(policy);
            limits.put(policy.name(), policy.spec());
        }
        for (Map.Entry<String, Map<String, String>> e : routes.entrySet()) {
            builder.route(route(e.getKey(), e.getValue(), limits));
        }
    }

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

    private static void group(Map<String, Map<String, String>> into, String key, String prefix, String value,
            String shape) {
        String rest = key.substring(prefix.length());
        int dot = rest.lastIndexOf('.');
        if (dot <= 0 || dot == rest.length() - 1) {
            throw new IllegalArgumentException("malformed property " + key + "=" + quote(value) + "; expected " + shape);
        }
        into.computeIfAbsent(rest.substring(0, dot), k -> new LinkedHashMap<>()).put(rest.substring(dot + 1), value);
    }

    private static RateLimitPolicy policy(String name, Map<String, String> settings) {
        String base = POLICIES + name + ".";
        String algorithm = settings.get("algorithm");
        if (algorithm == null) {
            throw new IllegalArgumentException("missing property " + base + "algorithm; expected one of " + ALGORITHMS);
        }
        algorithm = algorithm.toLowerCase(Locale.ROOT);
        if (!ALGORITHMS.contains(algorithm)) {
            throw new IllegalArgumentException("invalid property " + base + "algorithm=" + quote(settings.get("algorithm"))
                    + "; expected one of " + ALGORITHMS);
        }
        Set<String> specKeys = ALGORITHM_KEYS.get(algorithm);
        for (Map.Entry<String, String> s : settings.entrySet()) {
            if (!COMMON_POLICY_KEYS.contains(s.getKey()) && !specKeys.contains(s.getKey())) {
                List<String> allowed = new ArrayList<>(specKeys);
                allowed.addAll(COMMON_POLICY_KEYS);
                allowed.sort(null);
                throw new IllegalArgumentException("unknown property " + base + s.getKey() + "=" + quote(s.getValue())
                        + " for algorithm " + algorithm + "; expected one of " + allowed);
            }
        }
        Policy p = new Policy(base, algorithm, settings);
        LimitSpec spec;
        try {
            spec = switch (algorithm) {
                case "fixed-window" -> LimitSpec.fixedWindow(p.limit(), p.duration("window"));
                case "sliding-window" -> LimitSpec.slidingWindow(p.limit(), p.duration("window"),
                        (int) p.number("segments", 1, LimitSpec.SlidingWindow.MAX_SEGMENTS));
                case "sliding-log" -> LimitSpec.slidingLog(p.limit(), p.duration("window"));
                case "sliding-counter" -> LimitSpec.slidingCounter(p.limit(), p.duration("window"));
                case "token-bucket" -> LimitSpec.tokenBucket(p.limit(),
                        p.number("tokens-per-period", 1, LimitSpec.MAX_LIMIT), p.duration("replenishment-period"));
                case "gcra" -> LimitSpec.gcra(p.limit(), p.duration("window"),
                        p.number("burst", 1, LimitSpec.MAX_LIMIT));
                default -> LimitSpec.concurrency(p.limit(), settings.containsKey("lease-duration")
                        ? p.duration("lease-duration") : LimitSpec.DEFAULT_LEASE_DURATION);
            };
        } catch (PropertyException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw p.specError(e);
        }
        LimiterOptions.Builder options = RateLimitPolicy.EDGE_DEFAULTS.toBuilder();
        if (settings.containsKey("queue-limit")) {
            options.queueLimit(p.number("queue-limit", 0, LimitSpec.MAX_LIMIT));
        }
        if (settings.containsKey("max-retries")) {
            options.maxRetries((int) p.number("max-retries", 0, 10));
        }
        if (settings.containsKey("decision-timeout")) {
            Duration timeout = p.duration("decision-timeout");
            try {
                options.decisionTimeout(timeout);
            } catch (IllegalArgumentException e) {
                throw p.error("decision-timeout", e.getMessage());
            }
        }
        if (settings.containsKey("failure-mode")) {
            options.failureMode(p.choice("failure-mode", FailureMode.class, "allow, deny, throw"));
        }
        if (settings.containsKey("durability")) {
            options.durability(p.choice("durability", Durability.class, "replicated, replicated-async, ephemeral"));
        }
        RateLimitPolicy policy;
        try {
            policy = new RateLimitPolicy(name, spec, options.build());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid policy name in " + base + "*: " + e.getMessage(), e);
        }
        if (settings.containsKey("identity")) {
            policy = policy.withIdentity(identity(base + "identity", settings.get("identity")));
        }
        if (settings.containsKey("shadow")) {
            policy = policy.withShadow(bool(base + "shadow", settings.get("shadow")));
        }
        return policy;
    }

    /** One policy's settings, with errors that name the property. */
    private record Policy(String base, String algorithm, Map<String, String> settings) {

        long limit() {
            return number("permit-limit", 1, LimitSpec.MAX_LIMIT);
        }

        String require(String setting, String expected) {
            String v = settings.get(setting);
            if (v == null) {
                throw new PropertyException("missing property " + base + setting + "; expected " + expected
                        + " (required by algorithm " + algorithm + ")");
            }
            return v;
        }

        long number(String setting, long min, long max) {
            String expected = "a whole number between " + min + " and " + max;
            String v = require(setting, expected);
            long n;
            try {
                n = Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw error(setting, "expected " + expected);
            }
            if (n < min || n > max) {
                throw error(setting, "expected " + expected);
            }
            return n;
        }

        /**
         * A positive duration, ISO-8601 ({@code PT1M}, {@code PT0.5S}) or Spring Boot's simple form: a whole number
         * and a unit of {@code ns}, {@code us}, {@code ms}, {@code s}, {@code m}, {@code h}, {@code d} ({@code 1m},
         * {@code 500ms}), so a value copied from a Boot application means the same here.
         */
        Duration duration(String setting) {
            String expected = "a positive duration, ISO-8601 (PT1M, PT30S, PT0.5S) or a whole number with a unit"
                    + " of ns, us, ms, s, m, h or d (1m, 30s, 500ms)";
            String v = require(setting, expected);
            Duration d;
            try {
                d = parseDuration(v);
            } catch (DateTimeParseException | ArithmeticException e) {
                throw error(setting, "expected " + expected);
            }
            if (d == null || d.isNegative() || d.isZero()) {
                throw error(setting, "expected " + expected);
            }
            return d;
        }

        /** The duration {@code v} writes, or null if it is in neither form. */
        private static Duration parseDuration(String v) {
            java.util.regex.Matcher simple = SIMPLE_DURATION.matcher(v);
            if (!simple.matches()) {
                return Duration.parse(v);
            }
            long amount = Long.parseLong(simple.group(1));
            return switch (simple.group(2).toLowerCase(Locale.ROOT)) {
                case "ns" -> Duration.ofNanos(amount);
                case "us" -> Duration.of(amount, java.time.temporal.ChronoUnit.MICROS);
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                case "d" -> Duration.ofDays(amount);
                default -> null;
            };
        }

        private static final java.util.regex.Pattern SIMPLE_DURATION =
                java.util.regex.Pattern.compile("([+-]?[0-9]{1,18})([a-zA-Z]{1,2})");

        /**
         * The constant of {@code type} named by the setting, in any case, with {@code -} for {@code _};
         * {@code expected} lists them as written.
         */
        <E extends Enum<E>> E choice(String setting, Class<E> type, String expected) {
            try {
                return Enum.valueOf(type, settings.get(setting).toUpperCase(Locale.ROOT).replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw error(setting, "expected one of " + expected);
            }
        }

        IllegalArgumentException error(String setting, String expected) {
            return new PropertyException("invalid property " + base + setting + "="
                    + quote(settings.get(setting)) + "; " + expected);
        }

        /** A spec's own validation error, attributed to the property that sets the parameter it names. */
        IllegalArgumentException specError(IllegalArgumentException e) {
            String property = e instanceof IllegalParameterException p ? SPEC_FIELDS.get(p.parameter()) : null;
            if (property != null && settings.containsKey(property)) {
                return new IllegalArgumentException("invalid property " + base + property + "="
                        + quote(settings.get(property)) + "; " + e.getMessage(), e);
            }
            return new IllegalArgumentException("invalid properties " + base + "* " + settings + "; " + e.getMessage(), e);
        }
    }

    private static Route route(String id, Map<String, String> settings, Map<String, LimitSpec> limits) {
        String base = ROUTES + id + ".";
        for (Map.Entry<String, String> s : settings.entrySet()) {
            if (!ROUTE_KEYS.contains(s.getKey())) {
                throw new IllegalArgumentException("unknown property " + base + s.getKey() + "=" + quote(s.getValue())
                        + "; expected one of " + new TreeSet<>(ROUTE_KEYS));
            }
        }
        String pattern = settings.get("pattern");
        if (pattern == null) {
            throw new IllegalArgumentException("missing property " + base + "pattern; expected a path such as /login"
                    + " or a prefix such as /api/*");
        }
        String policy = settings.get("policy");
        if (policy == null) {
            throw new IllegalArgumentException("missing property " + base + "policy; expected the name of a policy");
        }
        List<String> names = Arrays.stream(policy.split(",", -1)).map(String::strip).toList();
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
            String what = e.getMessage().startsWith("route pattern") ? "pattern=" + quote(pattern)
                    : "policy=" + quote(policy);
            throw new IllegalArgumentException("invalid property " + base + what + "; " + e.getMessage(), e);
        }
        String methods = settings.get("methods");
        if (methods != null && !methods.isEmpty()) {
            try {
                route = route.withMethods(Arrays.stream(methods.split(",")).map(String::strip).toArray(String[]::new));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid property " + base + "methods=" + quote(methods)
                        + "; expected a comma-separated list of HTTP methods such as GET,POST: " + e.getMessage(), e);
            }
        }
        long maxCost = names.stream().mapToLong(n -> limits.get(n).limit()).min().orElseThrow();
        String cost = settings.get("cost");
        if (cost != null) {
            long n;
            try {
                n = Long.parseLong(cost);
            } catch (NumberFormatException e) {
                n = -1;
            }
            if (n < 1 || n > maxCost) {
                throw new IllegalArgumentException("invalid property " + base + "cost=" + quote(cost)
                        + "; expected a whole number between 1 and " + maxCost + " (the "
                        + (names.size() > 1 ? "lowest limit of policies '" : "limit of policy '") + policy + "')");
            }
            route = route.withCost(n);
        }
        return route;
    }

    private static Map<String, Capacity.Policy> capacityPolicies() {
        Map<String, Capacity.Policy> words = new LinkedHashMap<>();
        words.put("overflow", Capacity.Policy.SHARE_OVERFLOW_CELLS);
        words.put("refuse-new-keys", Capacity.Policy.REFUSE_NEW_KEYS);
        words.put("evict-resetting-budgets", Capacity.Policy.EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS);
        return Collections.unmodifiableMap(words);
    }

    /** The store's bound: at most one of keys, bytes and heap share (default {@link Capacity#defaults()}), a policy, cells. */
    private static Capacity capacity(Map<String, String> settings) {
        List<String> bounds = settings.keySet().stream()
                .filter(k -> !k.equals(CAPACITY_POLICY) && !k.equals(CAPACITY_OVERFLOW_CELLS)).toList();
        if (bounds.size() > 1) {
            throw new IllegalArgumentException("set one of " + CAPACITY_MAX_KEYS + ", " + CAPACITY_MAX_BYTES + " and "
                    + CAPACITY_HEAP_PERCENT + ", not " + bounds);
        }
        Capacity capacity = Capacity.defaults();
        String value;
        if ((value = settings.get(CAPACITY_MAX_KEYS)) != null) {
            capacity = Capacity.maxKeys(number(CAPACITY_MAX_KEYS, value, 1, Capacity.MAX_KEYS));
        } else if ((value = settings.get(CAPACITY_MAX_BYTES)) != null) {
            capacity = Capacity.maxBytes(number(CAPACITY_MAX_BYTES, value, Capacity.ESTIMATED_BYTES_PER_KEY,
                    Capacity.MAX_KEYS * Capacity.ESTIMATED_BYTES_PER_KEY));
        } else if ((value = settings.get(CAPACITY_HEAP_PERCENT)) != null) {
            capacity = Capacity.heapPercent((int) number(CAPACITY_HEAP_PERCENT, value, 1, Capacity.MAX_HEAP_PERCENT));
        }
        if ((value = settings.get(CAPACITY_POLICY)) != null) {
            Capacity.Policy policy = CAPACITY_POLICIES.get(value.toLowerCase(java.util.Locale.ROOT));
            if (policy == null) {
                throw new IllegalArgumentException(CAPACITY_POLICY + "=" + quote(value) + " is not a policy; expected"
                        + " one of " + CAPACITY_POLICIES.keySet());
            }
            capacity = capacity.withPolicy(policy);
        }
        if ((value = settings.get(CAPACITY_OVERFLOW_CELLS)) != null) {
            capacity = capacity.withOverflowCells((int) number(CAPACITY_OVERFLOW_CELLS, value, 1,
                    Capacity.MAX_OVERFLOW_CELLS));
        }
        return capacity;
    }

    private static String checkHeaderName(String key, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean token = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!token) {
                throw new IllegalArgumentException("invalid property " + key + "=" + quote(value)
                        + "; expected an HTTP header name such as X-Api-Key, or empty to identify by address only");
            }
        }
        return value;
    }

    private static TrustedProxies trustedProxies(String key, String value, boolean allowTrustAll) {
        if (value.isEmpty()) {
            return TrustedProxies.none();
        }
        try {
            return TrustedProxies.of(Arrays.stream(value.split(",")).map(String::strip).toList(), allowTrustAll);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid property " + key + "=" + quote(value) + "; " + e.getMessage(), e);
        }
    }

    private static NamedIdentity identity(String key, String value) {
        List<String> names = Arrays.stream(value.split(",", -1)).map(v -> v.strip().toLowerCase(Locale.ROOT)).toList();
        for (String name : names) {
            if (!NamedIdentity.NAMES.contains(name) || names.indexOf(name) != names.lastIndexOf(name)) {
                throw new IllegalArgumentException("invalid property " + key + "=" + quote(value) + "; expected one"
                        + " of address, api-key, principal, global, or several of them separated by commas (tried in"
                        + " order, the address when none answers)");
            }
        }
        return new NamedIdentity(names, key);
    }

    private static long number(String key, String value, long min, long max) {
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            n = min - 1;
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("invalid property " + key + "=" + quote(value)
                    + "; expected a whole number between " + min + " and " + max);
        }
        return n;
    }

    private static boolean bool(String key, String value) {
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException("invalid property " + key + "=" + quote(value) + "; expected true or false");
    }

    private static URI uri(String key, String value) {
        try {
            return new URI(value);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("invalid property " + key + "=" + quote(value)
                    + "; expected a URI such as about:blank or https://example.com/problems/rate-limited", e);
        }
    }

    private static String quote(String value) {
        return "'" + value + "'";
    }
}
