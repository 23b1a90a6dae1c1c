package dev.sluice.http;

import java.security.Principal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Objects;

/**
 * Tells which client a request comes from, so that each client gets its own budget. Implementations
 * are thread-safe and fast; they must not read the request body.
 *
 * <p>An identity limits only if the client cannot choose it. The client address can be chosen only by
 * whoever controls the trusted proxies; a header such as {@code X-Api-Key} can be chosen by anyone, so a
 * client that sends a new random key with each request gets a new budget each time. Use
 * {@link #apiKey(String)} only for keys that an earlier filter has authenticated (requests with an
 * unknown key rejected before they reach the rate-limit filter), and limit unauthenticated endpoints such
 * as a login by address as well (a second policy with the address identity).
 *
 * <p>The identifier returned is never stored: the filter hashes it with SHA-256 before it becomes part
 * of a key. Prefix it with its kind (as the built-in resolvers do with {@code api-key:}, {@code ip:} and
 * {@code principal:}) so that identifiers of different kinds never share a budget.
 */
@FunctionalInterface
public interface ClientIdentityResolver {

    /** The IPv6 prefix length by which {@link #address(TrustedProxies)} groups addresses. */
    int DEFAULT_IPV6_PREFIX = 64;

    /**
     * The identifier of the client that sent {@code request}, or {@code null} if this resolver cannot tell
     * (the next resolver of {@link #firstOf}, or the filter's fallback, the client address, then applies).
     * If it throws, the filter logs the exception and identifies the request by its client address.
     */
    String resolve(HttpRequestView request);

    /**
     * The value of the {@code header} request header, as {@code api-key:<value>}; null if absent or blank.
     * Only for keys that are authenticated before the rate-limit filter runs (see the class comment).
     *
     * @throws IllegalArgumentException if {@code header} is blank
     */
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

    /** As {@link #address(TrustedProxies, int)} with IPv6 addresses grouped by {@value #DEFAULT_IPV6_PREFIX} bits. */
    static ClientIdentityResolver address(TrustedProxies proxies) {
        return address(proxies, DEFAULT_IPV6_PREFIX);
    }

    /**
     * The client address as {@code ip:<address>}: the direct peer ({@link HttpRequestView#getRemoteAddr()}, the
     * address the server itself saw), or, if the peer is one of {@code proxies}, what
     * {@link TrustedProxies#clientAddress(String, List, List)} makes of its {@code X-Forwarded-For} and
     * {@code Forwarded} headers (the last {@value TrustedProxies#MAX_HOPS} lines of each are read). An IPv6 address is grouped by
     * its first {@code ipv6PrefixBits} bits ({@code ip:2001:db8:1:2:0:0:0:0/64}), because a single host is
     * commonly given a whole /64 and could otherwise take a new address, and a new budget, per request; an
     * IPv4 address (also one mapped into IPv6) stands for itself. A peer or forwarded entry that is not
     * an IP literal gives {@code ip:unknown}, one budget for all of them. Never null.
     *
     * @throws IllegalArgumentException if {@code ipv6PrefixBits} is not between 1 and 128
     */
    static ClientIdentityResolver address(TrustedProxies proxies, int ipv6PrefixBits) {
        Objects.requireNonNull(proxies, "proxies");
        if (ipv6PrefixBits < 1 || ipv6PrefixBits > 128) {
            throw new IllegalArgumentException("IPv6 prefix must be between 1 and 128 bits, was " + ipv6PrefixBits);
        }
        return request -> {
            String remote = request.getRemoteAddr();
            if (remote == null) {
                return "ip:" + TrustedProxies.UNKNOWN;
            }
            List<String> forwardedFor = List.of();
            List<String> forwarded = List.of();
            if (proxies.isTrusted(remote)) {
                forwardedFor = lastLines(request, "X-Forwarded-For");
                forwarded = lastLines(request, "Forwarded");
            }
            return "ip:" + TrustedProxies.grouped(proxies.clientAddress(remote, forwardedFor, forwarded), ipv6PrefixBits);
        };
    }

    /** The last {@value TrustedProxies#MAX_HOPS} lines of a header. */
    private static List<String> lastLines(HttpRequestView request, String header) {
        ArrayDeque<String> last = new ArrayDeque<>();
        Enumeration<String> values = request.getHeaders(header);
        while (values != null && values.hasMoreElements()) {
            if (last.size() == TrustedProxies.MAX_HOPS) {
                last.removeFirst();
            }
            last.addLast(values.nextElement());
        }
        return new ArrayList<>(last);
    }

    /** The authenticated user ({@link HttpRequestView#getUserPrincipal()}) as {@code principal:<name>}; null if anonymous. */
    static ClientIdentityResolver principal() {
        return request -> {
            Principal p = request.getUserPrincipal();
            return p == null || p.getName() == null ? null : "principal:" + p.getName();
        };
    }

    /** One identity for every request ({@code global}): a policy with it is one budget shared by all clients. */
    static ClientIdentityResolver global() {
        return request -> "global";
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

    /** The default: the client address, no proxy trusted, IPv6 grouped by {@value #DEFAULT_IPV6_PREFIX} bits. */
    static ClientIdentityResolver defaults() {
        return address(TrustedProxies.none());
    }
}
