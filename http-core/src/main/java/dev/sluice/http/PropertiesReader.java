package dev.sluice.http;

import dev.sluice.http.SluiceSettings.Algorithm;
import dev.sluice.http.SluiceSettings.CapacityPolicy;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.LimitSpec;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Maps {@code sluice.*} properties onto {@link SluiceSettings}: each property is named after its record component,
 * so no name is written here. It checks what only text can get wrong (syntax, ranges, unknown keys), with errors
 * that name the property, its value and what is allowed; {@link SettingsRules} checks the rest.
 */
final class PropertiesReader {
    static final String PREFIX = "sluice.";
    static final String POLICIES = PREFIX + kebab("policies") + ".";
    static final String ROUTES = PREFIX + kebab("routes") + ".";
    static final String API_KEY_HEADER = "sluice.client.api-key-header";
    /** Every property outside {@code sluice.policies.} and {@code sluice.routes.}. */
    static final List<String> TOP_LEVEL = leaves(SluiceSettings.class, PREFIX);

    // A composite is no algorithm of its own here: a route names several policies instead.
    static final List<String> ALGORITHMS = Arrays.stream(Algorithm.values()).map(Algorithm::written).toList();
    /** The settings of a policy's limit, by algorithm; the others apply to every algorithm. */
    static final Map<String, Set<String>> ALGORITHM_KEYS = Map.of(
            "fixed-window", Set.of("permit-limit", "window"),
            "sliding-window", Set.of("permit-limit", "window", "segments"),
            "sliding-log", Set.of("permit-limit", "window"),
            "sliding-counter", Set.of("permit-limit", "window"),
            "token-bucket", Set.of("permit-limit", "tokens-per-period", "replenishment-period"),
            "gcra", Set.of("permit-limit", "window", "burst"),
            "concurrency", Set.of("permit-limit", "lease-duration"));
    static final Set<String> COMMON_POLICY_KEYS = commonPolicyKeys();
    static final Set<String> ROUTE_KEYS = Set.copyOf(names(SluiceSettings.RouteSettings.class));

    /** The whole numbers each numeric setting allows, by the setting's name. */
    static final Map<String, long[]> RANGES = Map.ofEntries(
            Map.entry("permit-limit", new long[] {1, LimitSpec.MAX_LIMIT}),
            Map.entry("segments", new long[] {1, LimitSpec.SlidingWindow.MAX_SEGMENTS}),
            Map.entry("tokens-per-period", new long[] {1, LimitSpec.MAX_LIMIT}),
            Map.entry("burst", new long[] {1, LimitSpec.MAX_LIMIT}),
            Map.entry("queue-limit", new long[] {0, LimitSpec.MAX_LIMIT}),
            Map.entry("max-retries", new long[] {0, 10}),
            Map.entry("cost", new long[] {1, LimitSpec.MAX_LIMIT}),
            Map.entry("ipv6-prefix", new long[] {1, 128}),
            Map.entry("max-keys", new long[] {1, Capacity.MAX_KEYS}),
            Map.entry("max-bytes", new long[] {Capacity.ESTIMATED_BYTES_PER_KEY,
                Capacity.MAX_KEYS * Capacity.ESTIMATED_BYTES_PER_KEY}),
            Map.entry("heap-percent", new long[] {1, Capacity.MAX_HEAP_PERCENT}),
            Map.entry("overflow-cells", new long[] {1, Capacity.MAX_OVERFLOW_CELLS}));

    static final String DURATION_EXPECTED = "a positive duration, ISO-8601 (PT1M, PT30S, PT0.5S) or a whole number"
            + " with a unit of ns, us, ms, s, m, h or d (1m, 30s, 500ms)";

    private PropertiesReader() {}

    /** The settings {@code properties} write; keys outside {@code sluice.} are ignored. */
    static SluiceSettings read(Properties properties) {
        Map<String, String> values = new LinkedHashMap<>();
        Function<String, String> written = written(properties);
        for (String key : new TreeSet<>(properties.stringPropertyNames())) {
            if (key.startsWith(PREFIX)) {
                values.put(key, written.apply(key));
            }
        }
        SluiceSettings settings = record(SluiceSettings.class, PREFIX, values);
        if (!values.isEmpty()) {
            Map.Entry<String, String> e = values.entrySet().iterator().next();
            throw new IllegalArgumentException("unknown property " + e.getKey() + "=" + quote(e.getValue())
                    + "; expected sluice.policies.<name>.<setting>, sluice.routes.<id>.<setting> or one of "
                    + TOP_LEVEL);
        }
        return settings == null ? SluiceSettings.defaults() : settings;
    }

    /**
     * Each property's value as written, for messages: stripped, except a route's pattern, which is checked as
     * written (trimming would accept one that can never match).
     */
    static Function<String, String> written(Properties properties) {
        return key -> {
            String v = properties.getProperty(key);
            return v == null || key.endsWith(".pattern") ? v : v.strip();
        };
    }

    /** See {@link SluiceSettings#checkWritten(String, String)}. */
    static void checkWritten(String property, String value) {
        Type type = typeOf(property);
        if (type != null && !(type instanceof ParameterizedType) && value != null) {
            convert(property, property.endsWith(".pattern") ? value : value.strip(), type);
        }
    }

    /** The type of the setting {@code property} names, or null if it names none. */
    private static Type typeOf(String property) {
        if (!property.startsWith(PREFIX)) {
            return null;
        }
        Class<?> type = SluiceSettings.class;
        String rest = property.substring(PREFIX.length());
        while (true) {
            RecordComponent found = null;
            for (RecordComponent c : type.getRecordComponents()) {
                String name = kebab(c.getName());
                if (rest.equals(name) || rest.startsWith(name + ".")) {
                    found = c;
                }
            }
            if (found == null) {
                return null;
            }
            String name = kebab(found.getName());
            if (rest.equals(name)) {
                return found.getType().isRecord() || Map.class.isAssignableFrom(found.getType()) ? null
                        : found.getGenericType();
            }
            rest = rest.substring(name.length() + 1);
            if (Map.class.isAssignableFrom(found.getType())) {
                int dot = rest.lastIndexOf('.');
                if (dot <= 0) {
                    return null;
                }
                rest = rest.substring(dot + 1);
                type = (Class<?>) ((ParameterizedType) found.getGenericType()).getActualTypeArguments()[1];
            } else if (found.getType().isRecord()) {
                type = found.getType();
            } else {
                return null;
            }
        }
    }

    /**
     * The record of {@code type} whose components are the keys {@code base + kebab(name)} of {@code values},
     * or null if none is set; the keys it takes are removed from {@code values}.
     */
    private static <R> R record(Class<R> type, String base, Map<String, String> values) {
        RecordComponent[] components = type.getRecordComponents();
        Object[] args = new Object[components.length];
        boolean any = false;
        for (int i = 0; i < components.length; i++) {
            RecordComponent c = components[i];
            String key = base + kebab(c.getName());
            if (c.getType().isRecord()) {
                args[i] = record(c.getType(), key + ".", values);
            } else if (Map.class.isAssignableFrom(c.getType())) {
                args[i] = group(key + ".", (Class<?>) ((ParameterizedType) c.getGenericType())
                        .getActualTypeArguments()[1], values);
            } else if (values.containsKey(key)) {
                args[i] = convert(key, values.remove(key), c.getGenericType());
            }
            any |= args[i] != null;
            if (args[i] == null && c.getType().isPrimitive()) {
                args[i] = c.getType() == int.class ? (Object) 0 : c.getType() == long.class ? (Object) 0L : false;
            }
        }
        if (!any) {
            return null;
        }
        try {
            return type.getDeclaredConstructor(Arrays.stream(components).map(RecordComponent::getType)
                    .toArray(Class<?>[]::new)).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot construct " + type.getName(), e);
        }
    }

    /** The records under {@code prefix}, one per name ({@code prefix + <name>.<setting>}). */
    private static <V> Map<String, V> group(String prefix, Class<V> type, Map<String, String> values) {
        Map<String, Map<String, String>> byName = new LinkedHashMap<>();
        for (var it = values.entrySet().iterator(); it.hasNext();) {
            Map.Entry<String, String> e = it.next();
            if (!e.getKey().startsWith(prefix)) {
                continue;
            }
            String rest = e.getKey().substring(prefix.length());
            int dot = rest.lastIndexOf('.');
            if (dot <= 0 || dot == rest.length() - 1) {
                throw new IllegalArgumentException("malformed property " + e.getKey() + "=" + quote(e.getValue())
                        + "; expected " + prefix + (type == SluiceSettings.PolicySettings.class ? "<name>" : "<id>")
                        + ".<setting>");
            }
            byName.computeIfAbsent(rest.substring(0, dot), k -> new LinkedHashMap<>()).put(e.getKey(), e.getValue());
            it.remove();
        }
        Map<String, V> records = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, String>> e : byName.entrySet()) {
            String base = prefix + e.getKey() + ".";
            Map<String, String> settings = e.getValue();
            if (type == SluiceSettings.PolicySettings.class) {
                String algorithm = settings.get(base + "algorithm");
                if (algorithm == null) {
                    throw new IllegalArgumentException("missing property " + base + "algorithm; expected one of "
                            + ALGORITHMS);
                }
                String written = ((Algorithm) convert(base + "algorithm", algorithm, Algorithm.class)).written();
                settings.forEach((k, v) -> SettingsRules.checkAppliesTo(base, k.substring(base.length()), quote(v),
                        written));
            }
            V record = record(type, base, settings);
            if (!settings.isEmpty()) {
                Map.Entry<String, String> unknown = settings.entrySet().iterator().next();
                throw new IllegalArgumentException("unknown property " + unknown.getKey() + "="
                        + quote(unknown.getValue()) + "; expected one of " + new TreeSet<>(names(type)));
            }
            records.put(e.getKey(), record);
        }
        return records.isEmpty() ? null : records;
    }

    /** The value {@code text} writes for a setting of {@code type}; errors name the property, text and rule. */
    static Object convert(String property, String text, Type type) {
        String setting = property.substring(property.lastIndexOf('.') + 1);
        if (type instanceof ParameterizedType) { // List<String>
            return text.isEmpty() ? List.of() : Arrays.stream(text.split(",", -1)).map(String::strip).toList();
        }
        Class<?> c = (Class<?>) type;
        if (c == String.class) {
            return text;
        }
        if (c == Long.class || c == long.class || c == Integer.class || c == int.class) {
            long[] range = RANGES.get(setting);
            long n = number(property, text, range[0], range[1]);
            return c == Long.class || c == long.class ? (Object) n : (Object) (int) n;
        }
        if (c == Boolean.class || c == boolean.class) {
            return bool(property, text);
        }
        if (c == Duration.class) {
            return duration(property, text);
        }
        if (c == URI.class) {
            try {
                return new URI(text);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("invalid property " + property + "=" + quote(text)
                        + "; expected a URI such as about:blank or https://example.com/problems/rate-limited", e);
            }
        }
        if (c == CapacityPolicy.class) {
            for (CapacityPolicy p : CapacityPolicy.values()) {
                if (p.written().equalsIgnoreCase(text)) {
                    return p;
                }
            }
            throw new IllegalArgumentException(property + "=" + quote(text) + " is not a policy; expected one of "
                    + Arrays.stream(CapacityPolicy.values()).map(CapacityPolicy::written).toList());
        }
        if (c == Algorithm.class) {
            for (Algorithm a : Algorithm.values()) {
                if (a.written().equalsIgnoreCase(text)) {
                    return a;
                }
            }
            throw new IllegalArgumentException("invalid property " + property + "=" + quote(text)
                    + "; expected one of " + ALGORITHMS);
        }
        if (c == FailureMode.class || c == Durability.class) {
            String expected = c == FailureMode.class ? "allow, deny, throw" : "replicated, replicated-async, ephemeral";
            for (Object constant : c.getEnumConstants()) {
                if (((Enum<?>) constant).name().replace('_', '-').equalsIgnoreCase(text)) {
                    return constant;
                }
            }
            throw new IllegalArgumentException("invalid property " + property + "=" + quote(text)
                    + "; expected one of " + expected);
        }
        throw new IllegalStateException("no reader for " + type + " of " + property);
    }

    static long number(String key, String value, long min, long max) {
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

    /** The spellings Spring's own conversion reads as a boolean, so a switch means here what it means in Boot. */
    static final List<String> TRUE = List.of("true", "yes", "on", "1");
    static final List<String> FALSE = List.of("false", "no", "off", "0");
    static final String BOOLEAN_EXPECTED = "expected true or false (also yes/no, on/off, 1/0; any case)";

    private static boolean bool(String key, String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        if (TRUE.contains(v)) {
            return true;
        }
        if (FALSE.contains(v)) {
            return false;
        }
        throw new IllegalArgumentException("invalid property " + key + "=" + quote(value) + "; " + BOOLEAN_EXPECTED);
    }

    /**
     * A positive duration, ISO-8601 ({@code PT1M}, {@code PT0.5S}) or Spring Boot's simple form: a whole number
     * and a unit of {@code ns}, {@code us}, {@code ms}, {@code s}, {@code m}, {@code h}, {@code d} ({@code 1m},
     * {@code 500ms}), so a value copied from a Boot application means the same here.
     */
    private static Duration duration(String key, String value) {
        Duration d;
        try {
            d = parseDuration(value);
        } catch (DateTimeParseException | ArithmeticException e) {
            d = null;
        }
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("invalid property " + key + "=" + quote(value) + "; expected "
                    + DURATION_EXPECTED);
        }
        return d;
    }

    /** The duration {@code v} writes, or null if it is in neither form. */
    private static Duration parseDuration(String v) {
        Matcher simple = SIMPLE_DURATION.matcher(v);
        if (!simple.matches()) {
            return Duration.parse(v);
        }
        long amount = Long.parseLong(simple.group(1));
        return switch (simple.group(2).toLowerCase(Locale.ROOT)) {
            case "ns" -> Duration.ofNanos(amount);
            case "us" -> Duration.of(amount, ChronoUnit.MICROS);
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            case "d" -> Duration.ofDays(amount);
            default -> null;
        };
    }

    private static final Pattern SIMPLE_DURATION = Pattern.compile("([+-]?[0-9]{1,18})([a-zA-Z]{1,2})");

    /** {@code permitLimit} as a property writes it: {@code permit-limit}. */
    static String kebab(String name) {
        StringBuilder s = new StringBuilder(name.length() + 4);
        for (char ch : name.toCharArray()) {
            if (Character.isUpperCase(ch)) {
                s.append('-').append(Character.toLowerCase(ch));
            } else {
                s.append(ch);
            }
        }
        return s.toString();
    }

    /** The settings of {@code type}, as properties write them. */
    static List<String> names(Class<?> type) {
        return Arrays.stream(type.getRecordComponents()).map(c -> kebab(c.getName())).toList();
    }

    /** Every property below {@code base} of {@code type} outside its maps. */
    private static List<String> leaves(Class<?> type, String base) {
        List<String> leaves = new ArrayList<>();
        for (RecordComponent c : type.getRecordComponents()) {
            String key = base + kebab(c.getName());
            if (c.getType().isRecord()) {
                leaves.addAll(leaves(c.getType(), key + "."));
            } else if (!Map.class.isAssignableFrom(c.getType())) {
                leaves.add(key);
            }
        }
        return List.copyOf(leaves);
    }

    private static Set<String> commonPolicyKeys() {
        Set<String> common = new TreeSet<>(names(SluiceSettings.PolicySettings.class));
        ALGORITHM_KEYS.values().forEach(common::removeAll);
        common.add("algorithm");
        return Set.copyOf(common);
    }

    static String quote(String value) {
        return "'" + value + "'";
    }
}
