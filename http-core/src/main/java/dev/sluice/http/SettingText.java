package dev.sluice.http;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the text of a {@code sluice.*} property becomes its value, for the properties reader and for binders that
 * convert text themselves (Spring Boot's, whose own conversion reads a bare number for a duration as milliseconds):
 * durations in ISO-8601 or with a unit, never a bare number; switches as Spring's conversion reads a boolean; whole
 * numbers within each setting's range; enum words in kebab case. Every error names the property, the value as written
 * and what is allowed.
 */
public final class SettingText {
    static final String DURATION_EXPECTED = "a positive duration, ISO-8601 (PT1M, PT30S, PT0.5S) or a whole number"
            + " with a unit of ns, us, ms, s, m, h or d (1m, 30s, 500ms)";
    static final String BOOLEAN_EXPECTED = "expected true or false (also yes/no, on/off, 1/0; any case)";

    /**
     * The whole numbers each numeric setting allows, by the setting's name: an algorithm's parameter as widely as any
     * algorithm allows it (the policy's own algorithm checks its bounds when the limit is built).
     */
    static final Map<String, long[]> RANGES = ranges();

    private static final Pattern SIMPLE_DURATION = Pattern.compile("([+-]?[0-9]{1,18})([a-zA-Z]{1,2})");

    private SettingText() {}

    /**
     * A switch: {@code true}, {@code yes}, {@code on}, {@code 1} or their opposites, in any case, as Spring's
     * conversion reads a boolean, so a switch means the same with and without Spring.
     *
     * @throws IllegalArgumentException naming the property, the value and what is allowed
     */
    public static boolean bool(String property, String text) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "true", "yes", "on", "1" -> true;
            case "false", "no", "off", "0" -> false;
            default -> throw new IllegalArgumentException("invalid property " + property + "=" + quote(text) + "; "
                    + BOOLEAN_EXPECTED);
        };
    }

    /** The value {@code text} writes for a setting of {@code type}; errors name the property, text and rule. */
    static Object value(String property, String text, Type type) {
        if (type instanceof ParameterizedType) { // List<String>
            return text.isEmpty() ? List.of() : Arrays.stream(text.split(",", -1)).map(String::strip).toList();
        }
        Class<?> c = (Class<?>) type;
        if (c == String.class) {
            return text;
        }
        if (c == Long.class || c == long.class || c == Integer.class || c == int.class) {
            long[] range = RANGES.get(property.substring(property.lastIndexOf('.') + 1));
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
        if (c.isEnum()) {
            for (Object constant : c.getEnumConstants()) {
                if (written((Enum<?>) constant).equalsIgnoreCase(text)) {
                    return constant;
                }
            }
            throw new IllegalArgumentException("invalid property " + property + "=" + quote(text)
                    + "; expected one of " + Arrays.stream(c.getEnumConstants()).map(e -> written((Enum<?>) e)).toList());
        }
        throw new IllegalStateException("no reader for " + type + " of " + property);
    }

    /** {@code FIXED_WINDOW} as a property writes it: {@code fixed-window}. */
    static String written(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static long number(String property, String text, long min, long max) {
        long n;
        try {
            n = Long.parseLong(text);
        } catch (NumberFormatException e) {
            n = min - 1;
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException("invalid property " + property + "=" + quote(text)
                    + "; expected a whole number between " + min + " and " + max);
        }
        return n;
    }

    /**
     * A positive duration, ISO-8601 ({@code PT1M}, {@code PT0.5S}) or Spring Boot's simple form: a whole number
     * and a unit of {@code ns}, {@code us}, {@code ms}, {@code s}, {@code m}, {@code h}, {@code d} ({@code 1m},
     * {@code 500ms}), so a value copied from a Boot application means the same here; a bare number, which Boot would
     * read as milliseconds, is refused.
     */
    static Duration duration(String property, String text) {
        Duration d;
        try {
            Matcher simple = SIMPLE_DURATION.matcher(text);
            d = simple.matches() ? simple(Long.parseLong(simple.group(1)), simple.group(2)) : Duration.parse(text);
        } catch (DateTimeParseException | ArithmeticException e) {
            d = null;
        }
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("invalid property " + property + "=" + quote(text) + "; expected "
                    + DURATION_EXPECTED);
        }
        return d;
    }

    private static Duration simple(long amount, String unit) {
        return switch (unit.toLowerCase(Locale.ROOT)) {
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

    private static Map<String, long[]> ranges() {
        Map<String, long[]> ranges = new HashMap<>(Map.of(
                "queue-limit", new long[] {0, LimitSpec.MAX_LIMIT},
                "max-retries", new long[] {0, 10},
                "cost", new long[] {1, LimitSpec.MAX_LIMIT},
                "ipv6-prefix", new long[] {1, 128},
                "refused-requests", new long[] {0, HttpRateLimiterConfig.MAX_REFUSAL_TRACE},
                "max-keys", new long[] {1, Capacity.MAX_KEYS},
                "max-bytes", new long[] {Capacity.ESTIMATED_BYTES_PER_KEY,
                    Capacity.MAX_KEYS * Capacity.ESTIMATED_BYTES_PER_KEY},
                "heap-percent", new long[] {1, Capacity.MAX_HEAP_PERCENT},
                "overflow-cells", new long[] {1, Capacity.MAX_OVERFLOW_CELLS}));
        ranges.put("fallback-replicas", new long[] {1, LimiterOptions.MAX_FALLBACK_REPLICAS});
        for (AlgorithmDescription d : AlgorithmDescription.all()) {
            for (AlgorithmDescription.Parameter p : d.parameters()) {
                if (p.isCount()) {
                    ranges.merge(p.setting(), new long[] {p.min(), p.max()},
                            (a, b) -> new long[] {Math.min(a[0], b[0]), Math.max(a[1], b[1])});
                }
            }
        }
        return Map.copyOf(ranges);
    }

    static String quote(String value) {
        return "'" + value + "'";
    }
}
