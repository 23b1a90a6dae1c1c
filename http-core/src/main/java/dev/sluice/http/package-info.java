/**
 * Rate limiting of HTTP requests for any server: named policies mapped to routes that path spellings and
 * {@code HEAD} cannot sidestep, several policies per request, clients identified by address unless
 * configured otherwise (hashed before they become keys), shadow mode, answers with the {@code RateLimit}
 * headers of draft-ietf-httpapi-ratelimit-headers-10, and refusals as {@code 429} with an RFC 9457
 * problem body. Nothing here names a servlet type: a server's adapter turns its request into an
 * {@link dev.sluice.http.HttpRequestView} and writes the {@link dev.sluice.http.HttpDecision} back.
 *
 * <p>Start with {@link dev.sluice.http.HttpRateLimiter} and {@link dev.sluice.http.HttpRateLimiterConfig}.
 */
package dev.sluice.http;
