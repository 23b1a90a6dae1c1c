/**
 * A Jakarta Servlet filter that rate-limits HTTP requests with Sluice: {@link dev.sluice.servlet.RateLimitFilter}
 * adapts the servlet API to {@link dev.sluice.http.HttpRateLimiter}, which holds the rules.
 */
package dev.sluice.servlet;
