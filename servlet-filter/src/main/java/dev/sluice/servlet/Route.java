package dev.sluice.servlet;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which requests a policy applies to, and what each costs. Immutable.
 *
 * <p>Patterns are matched against the request path inside the web application (servlet path plus path
 * info, as decoded and normalized by the container): an exact path such as {@code /login}, a prefix
 * such as {@code /api/*} (which matches {@code /api} and everything below it), or {@code /*} for every
 * path. An empty method set matches every method.
 *
 * @param pattern an exact path or a prefix ending in {@code /*}
 * @param methods upper-case HTTP methods; empty for all
 * @param policy the name of the {@link RateLimitPolicy} to apply
 * @param cost permits each matching request takes; at least 1
 */
public record Route(String pattern, Set<String> methods, String policy, long cost) {

    /**
     * Validates the route.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException naming the bad pattern, method or cost
     */
    public Route {
        checkPattern(pattern);
        Objects.requireNonNull(methods, "methods");
        TreeSet<String> upper = new TreeSet<>();
        for (String m : methods) {
            upper.add(checkMethod(m));
        }
        methods = Set.copyOf(upper);
        Objects.requireNonNull(policy, "policy");
        if (cost < 1) {
            throw new IllegalArgumentException("route cost must be at least 1, was " + cost + " (route " + pattern + ")");
        }
    }

    /** A route for every method with cost 1. */
    public static Route of(String pattern, String policy) {
        return new Route(pattern, Set.of(), policy, 1);
    }

    /** This route restricted to the given methods (case-insensitive). */
    public Route withMethods(String... methods) {
        return new Route(pattern, Set.copyOf(Arrays.asList(methods)), policy, cost);
    }

    /** This route with each request taking {@code cost} permits. */
    public Route withCost(long cost) {
        return new Route(pattern, methods, policy, cost);
    }

    /** True if this route applies to a request with this method and path. */
    public boolean matches(String method, String path) {
        if (!methods.isEmpty() && !methods.contains(method.toUpperCase(Locale.ROOT))) {
            return false;
        }
        if (pattern.equals("/*")) {
            return true;
        }
        if (pattern.endsWith("/*")) {
            String base = pattern.substring(0, pattern.length() - 2);
            return path.equals(base) || path.startsWith(base + "/");
        }
        return path.equals(pattern);
    }

    private static void checkPattern(String pattern) {
        Objects.requireNonNull(pattern, "pattern");
        int star = pattern.indexOf('*');
        boolean ok = pattern.startsWith("/") && (star < 0 || (star == pattern.length() - 1 && pattern.endsWith("/*")));
        for (int i = 0; ok && i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            ok = c > 0x20 && c < 0x7F;
        }
        if (!ok) {
            throw new IllegalArgumentException("route pattern must be an exact path starting with '/' or a prefix"
                    + " ending in '/*' (e.g. /login, /api/*), without spaces or control characters, was '"
                    + pattern + "'");
        }
    }

    private static String checkMethod(String method) {
        Objects.requireNonNull(method, "method");
        boolean ok = !method.isEmpty();
        for (int i = 0; ok && i < method.length(); i++) {
            char c = method.charAt(i);
            ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '_';
        }
        if (!ok) {
            throw new IllegalArgumentException("HTTP method must be letters (e.g. GET, POST), was '" + method + "'");
        }
        return method.toUpperCase(Locale.ROOT);
    }
}
