package dev.sluice.spring;

import java.beans.PropertyDescriptor;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.BeanUtils;

/**
 * The {@code sluice.*} names Spring Boot binds, read from {@link SluiceProperties} (the HTTP core's settings and the
 * starter's own), to name the nearest valid one for an unknown property ({@code sluice.policies.login.windw}: did you
 * mean {@code sluice.policies.login.window}?). Map keys (policy and route names) are the user's and kept.
 */
final class UnknownProperties {
    private UnknownProperties() {}

    /** The message for an unknown {@code name}: the name, the nearest valid one, and the valid names there. */
    static String message(String name) {
        String[] segments = name.split("\\.");
        Type type = SluiceProperties.class;
        StringBuilder prefix = new StringBuilder(segments[0]);
        for (int i = 1; i < segments.length; i++) {
            String segment = segments[i].replaceAll("\\[.*", "");
            Class<?> raw = raw(type);
            if (raw != null && Map.class.isAssignableFrom(raw)) {
                type = ((ParameterizedType) type).getActualTypeArguments()[1];
                prefix.append('.').append(segments[i]);
                continue;
            }
            Map<String, Type> properties = properties(raw);
            Type next = properties.get(segment);
            if (next == null) {
                if (properties.isEmpty()) {
                    break;
                }
                String nearest = nearest(segment, properties.keySet());
                return "unknown property " + name + "; did you mean " + prefix + "." + nearest + "? (valid after "
                        + prefix + ": " + String.join(", ", properties.keySet()) + ")";
            }
            type = next;
            prefix.append('.').append(segment);
        }
        return "unknown property " + name + "; it names no Sluice setting (the http-core README lists them all)";
    }

    private static Class<?> raw(Type type) {
        if (type instanceof Class<?> c) {
            return c;
        }
        return type instanceof ParameterizedType p && p.getRawType() instanceof Class<?> c ? c : null;
    }

    /** The bound names of a settings type, kebab-case, with their types; empty for a leaf. */
    private static Map<String, Type> properties(Class<?> type) {
        Map<String, Type> properties = new LinkedHashMap<>();
        if (type == null || type.isPrimitive() || type.getName().startsWith("java.") || type.isEnum()) {
            return properties;
        }
        for (PropertyDescriptor d : BeanUtils.getPropertyDescriptors(type)) {
            if (d.getReadMethod() != null && d.getWriteMethod() != null) {
                properties.put(kebab(d.getName()), d.getReadMethod().getGenericReturnType());
            }
        }
        return properties;
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }

    /** The candidate closest to {@code written} by edit distance (the first of equals). */
    static String nearest(String written, Iterable<String> candidates) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(written, c);
            if (d < bestDistance) {
                best = c;
                bestDistance = d;
            }
        }
        return best;
    }

    private static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }
}
