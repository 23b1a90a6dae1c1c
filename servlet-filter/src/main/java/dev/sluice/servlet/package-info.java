/**
 * A Jakarta Servlet filter that rate-limits HTTP requests with Sluice: named policies mapped to routes,
 * clients identified by API key or address (hashed before they become keys), answers with the IETF
 * {@code RateLimit} headers, and refusals as {@code 429} with an RFC 9457 problem body.
 *
 * <p>Start with {@link dev.sluice.servlet.RateLimitFilter} and
 * {@link dev.sluice.servlet.RateLimitFilterConfig}.
 */
package dev.sluice.servlet;
