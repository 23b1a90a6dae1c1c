package dev.sluice.http;

import java.security.Principal;
import java.util.Enumeration;

/**
 * What the rate limiter reads of an HTTP request, whichever server carries it: the servlet filter
 * adapts a servlet request, the Spring Boot starter's WebFlux filter a reactive one. The methods have the
 * names and meanings of {@code jakarta.servlet.http.HttpServletRequest}'s, so a {@link ClientIdentityResolver}
 * written against a servlet request reads the same here, and this type needs no servlet API.
 * Implementations never read the body, except the form parameters {@link #getParameterValues} is asked for.
 *
 * <p>The peer address and the forwarding headers ({@code X-Forwarded-For}, {@code Forwarded}) are what the
 * server itself received, before any forwarded-header support rewrote them (Spring's
 * {@code ForwardedHeaderFilter} and {@code ForwardedHeaderTransformer}, Tomcat's {@code RemoteIpValve},
 * Reactor Netty's forwarded mode): those believe proxies by rules of their own, while the rate limiter
 * believes only its {@link TrustedProxies}.
 */
public interface HttpRequestView {

    /** The request method as the server reports it, e.g. {@code GET}. */
    String getMethod();

    /** The path inside the application, decoded and normalized by the server; {@code /} for none. */
    String getPath();

    /** The first value of the header {@code name} (case-insensitive), or null. */
    String getHeader(String name);

    /**
     * Every value of the header {@code name} (case-insensitive), one per header line; empty if none. For
     * {@code X-Forwarded-For} and {@code Forwarded}, the lines the server received (see the class comment).
     */
    Enumeration<String> getHeaders(String name);

    /** The raw (undecoded) query string, or null. */
    String getQueryString();

    /**
     * The address of the direct peer, the socket's other end as the server saw it (see the class comment),
     * as an IP literal; null if the server does not know it.
     */
    String getRemoteAddr();

    /**
     * The decoded values of the request parameter {@code name} (names are matched after decoding, so
     * {@code %5Fmethod} is {@code _method}), from the query string and, for a form body
     * ({@code application/x-www-form-urlencoded}), from the form; null if there are none or this server does
     * not tell. The rate limiter asks only for {@code _method}, and only of a {@code POST} on a configuration
     * with a route that {@code POST} itself would not match.
     */
    default String[] getParameterValues(String name) {
        return null;
    }

    /** The authenticated user, or null if anonymous. */
    Principal getUserPrincipal();

    /**
     * The server's own request object ({@code HttpServletRequest} for the servlet filter,
     * {@code ServerWebExchange} for WebFlux), for a resolver that needs more than this view offers.
     */
    Object unwrap();
}
