package dev.sluice.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The methods a request is matched by: the one the container reports, upper case, with {@code GET} for
 * {@code HEAD} ({@code HttpServlet} answers {@code HEAD} by running {@code doGet}).
 *
 * <p>With canonical matching, a {@code POST} also counts as each method it asks to be treated as, in the
 * {@code X-HTTP-Method-Override}, {@code X-HTTP-Method} and {@code X-Method-Override} headers or a
 * {@code _method} parameter: Jersey's and Spring's override filters honour them after this filter has run,
 * so the request would otherwise run a limited {@code GET} or {@code DELETE} unlimited. The parameter is read
 * as those filters read it, decoded, from the query and from a form body ({@code %5Fmethod=GET},
 * {@code _m%65thod=GET} and a form field {@code _method=GET} are all {@code _method}), and only when some
 * route is limited to methods that do not include {@code POST}, since only then can an override change what
 * applies. A filter that overrides the method before this one wraps the request, and this filter sees the
 * method it made. Only a few short values are taken, so the work is bounded by what the container parses.
 */
final class RequestMethods {
    static final List<String> OVERRIDE_HEADERS = List.of("X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override");
    static final String OVERRIDE_PARAMETER = "_method";
    private static final int MAX_VALUES = 4;
    private static final int MAX_LENGTH = 32;

    private RequestMethods() {}

    static Set<String> of(HttpRequestView request, boolean strict, boolean overridesMatter) {
        String method = request.getMethod() == null ? "" : request.getMethod().toUpperCase(Locale.ROOT);
        Set<String> methods = new LinkedHashSet<>();
        add(methods, method);
        if (strict || !overridesMatter || !method.equals("POST")) {
            return methods;
        }
        for (String header : OVERRIDE_HEADERS) {
            Enumeration<String> values = request.getHeaders(header);
            for (int i = 0; values != null && values.hasMoreElements() && i < MAX_VALUES; i++) {
                add(methods, values.nextElement());
            }
        }
        String[] parameters = request.getParameterValues(OVERRIDE_PARAMETER);
        if (parameters != null) {
            for (int i = 0; i < parameters.length && i < MAX_VALUES; i++) {
                add(methods, parameters[i]);
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
                        add(methods, URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
                    }
                } catch (IllegalArgumentException malformed) {
                    // Not a parameter any framework would decode either.
                }
            }
        }
        return methods;
    }

    private static void add(Set<String> methods, String value) {
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
