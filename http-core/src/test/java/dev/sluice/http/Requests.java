package dev.sluice.http;

import java.security.Principal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A request as a server hands it to the rate limiter: method, decoded path, headers, raw query and form fields,
 * set by the test. Asking for the parameters when the test said they must not be read fails the test.
 */
final class Requests implements HttpRequestView {
    private final String method;
    private final String path;
    private final Map<String, List<String>> headers = new LinkedHashMap<>();
    private String query;
    private String remote = "192.0.2.1";
    private String[] parameters;
    private boolean parametersForbidden;

    private Requests(String method, String path) {
        this.method = method;
        this.path = path;
    }

    /** {@code method} on the decoded {@code path}, from 192.0.2.1. */
    static Requests of(String method, String path) {
        return new Requests(method, path);
    }

    Requests header(String name, String value) {
        headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new ArrayList<>()).add(value);
        return this;
    }

    Requests query(String rawQuery) {
        this.query = rawQuery;
        return this;
    }

    Requests from(String address) {
        this.remote = address;
        return this;
    }

    /** The decoded values of {@code _method} the server parsed (from the query or a form). */
    Requests parameters(String... values) {
        this.parameters = values;
        return this;
    }

    /** The parameters must not be read: reading them would make the server parse a form body. */
    Requests parametersForbidden() {
        this.parametersForbidden = true;
        return this;
    }

    @Override public String getMethod() { return method; }
    @Override public String getPath() { return path; }
    @Override public String getQueryString() { return query; }
    @Override public String getRemoteAddr() { return remote; }
    @Override public Principal getUserPrincipal() { return null; }
    @Override public Object unwrap() { return this; }

    @Override
    public String getHeader(String name) {
        List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
        return values == null ? null : values.get(0);
    }

    @Override
    public Enumeration<String> getHeaders(String name) {
        return Collections.enumeration(headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of()));
    }

    @Override
    public String[] getParameterValues(String name) {
        if (parametersForbidden) {
            throw new AssertionError("the parameters were read, which parses a form body");
        }
        return name.equals("_method") ? parameters : null;
    }
}
