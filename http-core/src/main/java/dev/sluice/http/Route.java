package dev.sluice.http;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which requests one or more policies apply to, and what each such request costs. Immutable.
 *
 * <p>Patterns are matched against the request path inside the web application (servlet path plus path
 * info, as decoded by the container): an exact path such as {@code /login}, a prefix such as
 * {@code /api/*} (which matches {@code /api} and everything below it), or {@code /*} for every path.
 * By default the comparison is canonical, so that spellings an application serves as the same endpoint
 * match too ({@code /login/}, {@code /LOGIN}, {@code /login%20}, {@code /login.json}, ...;
 * docs/http.md has the full table); {@link HttpRateLimiterConfig.Builder#strictMatching(boolean)} compares the
 * container's path exactly instead. An empty method set matches every method; methods are compared
 * case-insensitively with the method the container reports, and a {@code HEAD} request matches a route
 * for {@code GET}, because {@code HttpServlet} answers {@code HEAD} by running {@code doGet}.
 *
 * @param pattern an exact path or a prefix ending in {@code /*}
 * @param methods upper-case HTTP methods; empty for all
 * @param policies the names of the {@link RateLimitPolicy policies} to apply, in order; at least one
 * @param cost permits each matching request takes from each of the policies; at least 1
 */
public record Route(String pattern, Set<String> methods, List<String> policies, long cost) {

    /**
     * Validates the route.
     *
     * @throws NullPointerException if an argument or a policy name is null
     * @throws IllegalArgumentException naming the bad pattern, method, policy list or cost
     */
    public Route {
        checkPattern(pattern);
        Objects.requireNonNull(methods, "methods");
        TreeSet<String> upper = new TreeSet<>();
        for (String m : methods) {
            upper.add(checkMethod(m));
        }
        methods = Set.copyOf(upper);
        Objects.requireNonNull(policies, "policies");
        List<String> names = new ArrayList<>();
        for (String p : policies) {
            Objects.requireNonNull(p, "policy");
            if (names.contains(p)) {
                throw new IllegalArgumentException("route " + pattern + " names policy '" + p + "' twice");
            }
            names.add(p);
        }
        if (names.isEmpty()) {
            throw new IllegalArgumentException("route " + pattern + " must name at least one policy, named none");
        }
        policies = List.copyOf(names);
        if (cost < 1) {
            throw new IllegalArgumentException("route cost must be at least 1, was " + cost + " (route " + pattern + ")");
        }
    }

    /** A route for every method with cost 1 that applies {@code policy} and then each of {@code morePolicies}. */
    public static Route of(String pattern, String policy, String... morePolicies) {
        List<String> all = new ArrayList<>();
        all.add(policy);
        all.addAll(Arrays.asList(morePolicies));
        return new Route(pattern, Set.of(), all, 1);
    }

    /** This route restricted to the given methods (case-insensitive). */
    public Route withMethods(String... methods) {
        return new Route(pattern, Set.copyOf(Arrays.asList(methods)), policies, cost);
    }

    /** This route with each request taking {@code cost} permits from each of its policies. */
    public Route withCost(long cost) {
        return new Route(pattern, methods, policies, cost);
    }

    /**
     * True if this route applies to a request with this method and path, matched canonically (the
     * default; see the class comment).
     */
    public boolean matches(String method, String path) {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        String m = method.toUpperCase(Locale.ROOT);
        return Routes.matchesMethod(this, m.equals("HEAD") ? Set.of(m, "GET") : Set.of(m))
                && Routes.matchesPath(this, Paths.canonical(path), comparedBase(false), false);
    }

    /** The literal part as requests are compared with it: canonical, or as written under strict matching. */
    String comparedBase(boolean strict) {
        return strict ? base() : Paths.canonical(base());
    }

    /** The pattern without its trailing {@code /*}. */
    String base() {
        return pattern.endsWith("/*") ? pattern.substring(0, pattern.length() - 2) : pattern;
    }

    /**
     * Methods a route may name: those of the IANA HTTP Method Registry that servers route (RFC 9110, PATCH,
     * WebDAV). Any other name is almost surely a typo ({@code GETT}), and a route naming it would never apply.
     */
    static final Set<String> KNOWN_METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS",
            "TRACE", "PATCH", "QUERY", "PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "REPORT",
            "SEARCH", "MKCALENDAR", "ACL", "BIND", "UNBIND", "REBIND", "MERGE", "CHECKOUT", "CHECKIN", "UNCHECKOUT",
            "VERSION-CONTROL", "MKWORKSPACE", "UPDATE", "LABEL", "BASELINE-CONTROL", "MKACTIVITY", "ORDERPATCH",
            "MKREDIRECTREF", "UPDATEREDIRECTREF");

    /**
     * The pattern rules, each for a pattern that could never match a request path as the container
     * decodes it.
     */
    private static void checkPattern(String pattern) {
        Objects.requireNonNull(pattern, "pattern");
        String rule = null;
        int star = pattern.indexOf('*');
        if (!pattern.startsWith("/") || (star >= 0 && (star != pattern.length() - 1 || !pattern.endsWith("/*")))) {
            rule = "an exact path starting with '/' or a prefix ending in '/*' (e.g. /login, /api/*), with no other"
                    + " '*'";
        }
        for (int i = 0; rule == null && i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c <= 0x20 || c >= 0x7F) {
                rule = "printable ASCII without spaces or control characters: the container decodes the path, so"
                        + " write a letter as itself";
            } else if (c == '{' || c == '}') {
                rule = "a literal path: templates such as {id} are not expanded; use a prefix such as /api/users/*";
            } else if (c == '?') {
                rule = "a path without a query: the query is not part of the path compared";
            } else if (c == '#') {
                rule = "a path without a fragment: a fragment never reaches the server";
            } else if (c == '%') {
                rule = "a decoded path: the container decodes %xx before the comparison, so write the character"
                        + " itself";
            } else if (c == ';') {
                rule = "a path without path parameters: ';...' is dropped from request paths before the comparison";
            }
        }
        if (rule != null) {
            throw new IllegalArgumentException("route pattern must be " + rule + ", was '" + pattern + "'");
        }
    }

    private static String checkMethod(String method) {
        Objects.requireNonNull(method, "method");
        String m = method.strip().toUpperCase(Locale.ROOT);
        if (!KNOWN_METHODS.contains(m)) {
            throw new IllegalArgumentException("HTTP method must be one of the registered methods a server routes ("
                    + String.join(", ", new TreeSet<>(KNOWN_METHODS)) + "), was '" + method + "'");
        }
        return m;
    }
}
