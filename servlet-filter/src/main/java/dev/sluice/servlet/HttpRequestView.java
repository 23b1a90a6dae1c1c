package dev.sluice.servlet;

import java.security.Principal;
import java.util.Enumeration;

/**
 * What the rate limiter reads of an HTTP request, whichever server carries it: {@link RateLimitFilter}
 * adapts a servlet request, the Spring Boot starter's WebFlux filter a reactive one. The methods have the
 * names and meanings of {@code jakarta.servlet.http.HttpServletRequest}'s, so a {@link ClientIdentityResolver}
 * written against a servlet request reads the same here, and this type needs no servlet API at run time.
 * Implementations never read the body.
 */
public interface HttpRequestView {

    /** The request method as the server reports it, e.g. {@code GET}. */
    String getMethod();

    /** The path inside the application, decoded and normalized by the server; {@code /} for none. */
    String getPath();

    /** The first value of the header {@code name} (case-insensitive), or null. */
    String getHeader(String name);

    /** Every value of the header {@code name} (case-insensitive), one per header line; empty if none. */
    Enumeration<String> getHeaders(String name);

    /** The raw (undecoded) query string, or null. */
    String getQueryString();

    /** The address of the direct peer as an IP literal, or null if the server does not know it. */
    String getRemoteAddr();

    /** The authenticated user, or null if anonymous. */
    Principal getUserPrincipal();

    /**
     * The server's own request object ({@code HttpServletRequest} for the servlet filter,
     * {@code ServerWebExchange} for WebFlux), for a resolver that needs more than this view offers.
     */
    Object unwrap();
}
