package dev.sluice.http;

import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Objects;

/**
 * A client as an operator knows it, {@code <kind>:<value>} with a kind an identity setting names ({@code address},
 * {@code api-key}, {@code principal}), seen as a request that carries only that: its peer address, its API key in
 * every header a resolver asks for by name, or its user. A policy's own identity resolver reads it as it reads a
 * real request, so the operator's client is keyed exactly as the edge keys it (IPv6 grouping, a key's blanks).
 * It names no route: the path is {@code /} and the method {@code GET}.
 */
record KnownClient(String address, String apiKey, String user) implements HttpRequestView {
    static final List<String> KINDS = List.of("address", "api-key", "principal");

    /**
     * @throws IllegalArgumentException if {@code client} is not {@code <kind>:<value>} with a kind of {@link #KINDS}
     *     and a value
     */
    static KnownClient parse(String client) {
        Objects.requireNonNull(client, "client");
        int colon = client.indexOf(':');
        String kind = colon < 0 ? "" : client.substring(0, colon);
        String value = colon < 0 ? "" : client.substring(colon + 1);
        if (!KINDS.contains(kind) || value.isBlank()) {
            throw new IllegalArgumentException("client must be one of address:<ip>, api-key:<key> or principal:<user>,"
                    + " was '" + client + "'");
        }
        return switch (kind) {
            case "address" -> new KnownClient(value.strip(), null, null);
            case "api-key" -> new KnownClient(null, value, null);
            default -> new KnownClient(null, null, value);
        };
    }

    @Override public String getMethod() { return "GET"; }
    @Override public String getPath() { return "/"; }
    @Override public String getHeader(String name) { return apiKey; }
    @Override public Enumeration<String> getHeaders(String name) { return Collections.emptyEnumeration(); }
    @Override public String getQueryString() { return null; }
    @Override public String getRemoteAddr() { return address; }
    @Override public Principal getUserPrincipal() { return user == null ? null : () -> user; }
    @Override public Object unwrap() { return this; }
}
