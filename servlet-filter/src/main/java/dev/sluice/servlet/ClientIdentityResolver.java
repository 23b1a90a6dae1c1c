package dev.sluice.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Tells which client a request comes from, so that each client gets its own budget. Implementations
 * are thread-safe and fast; they must not read the request body.
 *
 * <p>The identifier returned is never stored: the filter hashes it with SHA-256 before it becomes part
 * of a key. Prefix it with its kind (as the built-in resolvers do with {@code api-key:}, {@code ip:} and
 * {@code principal:}) so that identifiers of different kinds never share a budget.
 */
@FunctionalInterface
public interface ClientIdentityResolver {

    /** The name of the header that carries an API key by default. */
    String DEFAULT_API_KEY_HEADER = "X-Api-Key";

    /**
     * The identifier of the client that sent {@code request}, or {@code null} if this resolver cannot tell
     * (the next resolver of {@link #firstOf}, or the filter's fallback, the client address, then applies).
     */
    String resolve(HttpServletRequest request);

    /** The value of the {@code header} request header, as {@code api-key:<value>}; null if absent or blank. */
    static ClientIdentityResolver apiKey(String header) {
        Objects.requireNonNull(header, "header");
        if (header.isBlank()) {
            throw new IllegalArgumentException("API key header name must not be blank, was '" + header + "'");
        }
        return request -> {
            String key = request.getHeader(header);
            return key == null || key.isBlank() ? null : "api-key:" + key.strip();
        };
    }

    /**
     * The client address as {@code ip:<address>}: the direct peer, or, if the peer is one of
     * {@code proxies}, what {@link TrustedProxies#clientAddress} makes of its {@code X-Forwarded-For}.
     */
    static ClientIdentityResolver address(TrustedProxies proxies) {
        Objects.requireNonNull(proxies, "proxies");
        return request -> {
            String remote = request.getRemoteAddr();
            if (remote == null) {
                return null;
            }
            List<String> forwarded = proxies.isTrusted(remote)
                    ? Collections.list(request.getHeaders("X-Forwarded-For")) : List.of();
            return "ip:" + proxies.clientAddress(remote, forwarded);
        };
    }

    /** The authenticated user as {@code principal:<name>}; null for an anonymous request. */
    static ClientIdentityResolver principal() {
        return request -> {
            Principal p = request.getUserPrincipal();
            return p == null || p.getName() == null ? null : "principal:" + p.getName();
        };
    }

    /** The first non-null answer of {@code resolvers}, tried in order. */
    static ClientIdentityResolver firstOf(ClientIdentityResolver... resolvers) {
        List<ClientIdentityResolver> list = List.of(resolvers);
        return request -> {
            for (ClientIdentityResolver r : list) {
                String id = r.resolve(request);
                if (id != null) {
                    return id;
                }
            }
            return null;
        };
    }

    /** The default: the {@value #DEFAULT_API_KEY_HEADER} header, else the address (no trusted proxies). */
    static ClientIdentityResolver defaults() {
        return firstOf(apiKey(DEFAULT_API_KEY_HEADER), address(TrustedProxies.none()));
    }
}
