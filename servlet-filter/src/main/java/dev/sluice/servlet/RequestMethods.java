package dev.sluice.servlet;

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
 * {@code _method} query parameter: Jersey's and Spring's override filters honour them after this filter
 * has run, so the request would otherwise run a limited {@code GET} or {@code DELETE} unlimited. A
 * filter that overrides the method before this one wraps the request, and this filter sees the method it
 * made. Only the query string is read, never the body, and only a few short values, so the work is
 * bounded.
 */
final class RequestMethods {
    static final List<String> OVERRIDE_HEADERS = List.of("X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override");
    private static final int MAX_VALUES = 4;
    private static final int MAX_LENGTH = 32;

    private RequestMethods() {}

    static Set<String> of(HttpRequestView request, boolean strict) {
        String method = request.getMethod() == null ? "" : request.getMethod().toUpperCase(Locale.ROOT);
        Set<String> methods = new LinkedHashSet<>();
        add(methods, method);
        if (strict || !method.equals("POST")) {
            return methods;
        }
        for (String header : OVERRIDE_HEADERS) {
            Enumeration<String> values = request.getHeaders(header);
            for (int i = 0; values != null && values.hasMoreElements() && i < MAX_VALUES; i++) {
                add(methods, values.nextElement());
            }
        }
        String query = request.getQueryString();
        if (query != null) {
            int found = 0;
            int at = 0;
            while (found < MAX_VALUES && (at = query.indexOf("_method=", at)) >= 0) {
                boolean parameterStart = at == 0 || query.charAt(at - 1) == '&' || query.charAt(at - 1) == ';';
                int from = at + "_method=".length();
                int to = query.indexOf('&', from);
                to = to < 0 ? query.length() : to;
                at = from;
                if (parameterStart && to - from <= MAX_LENGTH) {
                    found++;
                    try {
                        add(methods, URLDecoder.decode(query.substring(from, to), StandardCharsets.UTF_8));
                    } catch (IllegalArgumentException malformed) {
                        // Not a method any framework would decode either.
                    }
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
