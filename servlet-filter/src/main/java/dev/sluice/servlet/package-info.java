/**
 * A Jakarta Servlet filter that rate-limits HTTP requests with Sluice: named policies mapped to routes
 * that path spellings and {@code HEAD} cannot sidestep, several policies per request, clients identified
 * by address unless configured otherwise (hashed before they become keys), shadow mode, answers with the
 * {@code RateLimit} headers of draft-ietf-httpapi-ratelimit-headers-10, and refusals as {@code 429} with
 * an RFC 9457 problem body.
 *
 * <p>Start with {@link dev.sluice.servlet.RateLimitFilter} and
 * {@link dev.sluice.servlet.RateLimitFilterConfig}.
 */
package dev.sluice.servlet;
