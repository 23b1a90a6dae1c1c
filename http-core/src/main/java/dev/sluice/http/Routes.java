package dev.sluice.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which policies apply to a request, and what it costs each: a configuration's {@link Route}s, most specific
 * first, matched against the request's methods and path. Immutable; built once per {@link HttpRateLimiter}, so a
 * request compares against bases already in the form it is compared in.
 *
 * <p>The methods a request is matched by are the one the server reports, upper case, with {@code GET} for
 * {@code HEAD} ({@code HttpServlet} answers {@code HEAD} by running {@code doGet}). With canonical matching, a
 * {@code POST} also counts as each method it asks to be treated as, in the {@code X-HTTP-Method-Override},
 * {@code X-HTTP-Method} and {@code X-Method-Override} headers or a {@code _method} parameter: Jersey's and
 * Spring's override filters honour them after the rate limiter has run, so the request would otherwise run a
 * limited {@code GET} or {@code DELETE} unlimited. The parameter is read as those filters read it, decoded, from
 * the query and from a form body ({@code %5Fmethod=GET}, {@code _m%65thod=GET} and a form field
 * {@code _method=GET} are all {@code _method}), and only when some route is limited to methods that do not
 * include {@code POST}, since only then can an override change what applies. A filter that overrides the method
 * before the rate limiter wraps the request, and the rate limiter sees the method it made. Only a few short
 * values are taken, so the work is bounded by what the server parses.
 *
 * <p>The path is compared canonically ({@link Paths}) unless strict matching is on, when the server's decoded
 * path is compared as it is.
 */
final class Routes {
    static final List<String> OVERRIDE_HEADERS = List.of("X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override");
    static final String OVERRIDE_PARAMETER = "_method";
    private static final int MAX_VALUES = 4;
    private static final int MAX_LENGTH = 32;

    /** A policy that applies to a request, and the permits the request takes from it. */
    record Applied(RateLimitPolicy policy, long cost) {}

    private final List<Route> routes;
    private final List<String> bases;
    private final Map<String, RateLimitPolicy> policies;
    private final boolean strict;
    private final boolean overridesMatter;

    Routes(HttpRateLimiterConfig config) {
        this.routes = config.routes();
        this.strict = config.strictMatching();
        this.overridesMatter = config.overridesMatter();
        this.policies = config.policies();
        List<String> b = new ArrayList<>(routes.size());
        for (Route r : routes) {
            b.add(r.comparedBase(strict));
        }
        this.bases = List.copyOf(b);
    }

    /**
     * The policies that apply to {@code request}, in order, each once, with the cost of the most specific route
     * that names it; empty if the request is not protected.
     */
    List<Applied> match(HttpRequestView request) {
        if (routes.isEmpty()) {
            return List.of();
        }
        Set<String> methods = methods(request, strict, overridesMatter);
        String path = request.getPath();
        String compared = strict ? path : Paths.canonical(path);
        List<Applied> applied = List.of();
        for (int i = 0; i < routes.size(); i++) {
            if (!matches(i, methods, compared)) {
                continue;
            }
            Route r = routes.get(i);
            for (String name : r.policies()) {
                if (applied.stream().noneMatch(a -> a.policy().name().equals(name))) {
                    if (applied.isEmpty()) {
                        applied = new ArrayList<>(2);
                    }
                    applied.add(new Applied(policies.get(name), r.cost()));
                }
            }
        }
        return applied;
    }

    /** Every route that matches {@code request}, most specific first, whether or not its policies were decided. */
    List<Route> matching(HttpRequestView request) {
        if (routes.isEmpty()) {
            return List.of();
        }
        Set<String> methods = methods(request, strict, overridesMatter);
        String path = request.getPath();
        String compared = strict ? path : Paths.canonical(path);
        List<Route> matched = new ArrayList<>(2);
        for (int i = 0; i < routes.size(); i++) {
            if (matches(i, methods, compared)) {
                matched.add(routes.get(i));
            }
        }
        return matched;
    }

    private boolean matches(int route, Set<String> methods, String compared) {
        Route r = routes.get(route);
        return matchesMethod(r, methods) && matchesPath(r, compared, bases.get(route), strict);
    }

    /** True if {@code route} names no method, or one of {@code requestMethods} (upper case). */
    static boolean matchesMethod(Route route, Set<String> requestMethods) {
        if (route.methods().isEmpty()) {
            return true;
        }
        for (String m : requestMethods) {
            if (route.methods().contains(m)) {
                return true;
            }
        }
        return false;
    }

    /**
     * True if {@code path} is {@code route}'s: a canonical path against the canonical {@code base}, or (exact) the
     * server's path against the pattern's base as written.
     */
    static boolean matchesPath(Route route, String path, String base, boolean exact) {
        String pattern = route.pattern();
        if (pattern.equals("/*")) {
            return true;
        }
        boolean prefix = pattern.endsWith("/*");
        if (exact) {
            return path.equals(base) || (prefix && path.startsWith(base + "/"));
        }
        return Paths.sameEndpoint(path, base) || (prefix && path.startsWith(base.equals("/") ? "/" : base + "/"));
    }

    /** The methods {@code request} is matched by (see the class comment), upper case. */
    static Set<String> methods(HttpRequestView request, boolean strict, boolean overridesMatter) {
        String method = request.getMethod() == null ? "" : request.getMethod().toUpperCase(Locale.ROOT);
        Set<String> methods = new LinkedHashSet<>();
        addMethod(methods, method);
        if (strict || !overridesMatter || !method.equals("POST")) {
            return methods;
        }
        for (String header : OVERRIDE_HEADERS) {
            Enumeration<String> values = request.getHeaders(header);
            for (int i = 0; values != null && values.hasMoreElements() && i < MAX_VALUES; i++) {
                addMethod(methods, values.nextElement());
            }
        }
        String[] parameters = request.getParameterValues(OVERRIDE_PARAMETER);
        if (parameters != null) {
            for (int i = 0; i < parameters.length && i < MAX_VALUES; i++) {
                addMethod(methods, parameters[i]);
            }
        }
        String query = request.getQueryString();
        if (query != null) { // the same parameter decoded from the raw query, for views that do not parse it
            int found = 0;
            for (String pair : query.split("[&;]", 256)) {
                int eq = pair.indexOf('=');
                if (found == MAX_VALUES || eq < 0 || eq > 3 * MAX_LENGTH || pair.length() - eq - 1 > 3 * MAX_LENGTH) {
                    continue;
                }
                try {
                    if (URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8).equals(OVERRIDE_PARAMETER)) {
                        found++;
                        addMethod(methods, URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                    }
                } catch (IllegalArgumentException malformed) {
                    // Not a parameter any framework would decode either.
                }
            }
        }
        return methods;
    }

    private static void addMethod(Set<String> methods, String value) {
        String m = value.strip().toUpperCase(Locale.ROOT);
        if (m.isEmpty() || m.length() > MAX_LENGTH) {
            return;
        }
        methods.add(m);
        if (m.equals("HEAD")) {
            methods.add("GET");
        }
    }
}
