package dev.sluice.http;

import java.util.Objects;

/**
 * Tells which plan a request's client is on, for a policy whose limit depends on it ({@link
 * HttpRateLimiterConfig.Builder#plans}). Implementations are thread-safe and fast, and must not read the body.
 *
 * <p>A plan raises a limit, so it must come from something the client cannot choose: an authenticated principal's
 * claim, attribute or authority, or the application's own records. A header qualifies only when a proxy the server
 * trusts set it ({@link #header(String, TrustedProxies)}); a client that can send {@code X-Plan: pro} itself would
 * give itself the pro limit.
 */
@FunctionalInterface
public interface PlanResolver {

    /**
     * The plan of the client that sent {@code request}, or {@code null} if it has none (the policy's default plan then
     * applies, or the request is refused, as the policy says). If it throws, the filter logs the exception and treats
     * the request as having no plan. A plan is looked up by its exact name, else ignoring case.
     */
    String resolve(HttpRequestView request);

    /**
     * The value of the request header {@code header}, only when the request came from one of {@code proxies} (the
     * direct peer the server saw is trusted), which set or overwrote it; from any other peer the header is ignored
     * and the client has no plan. Blank values are none.
     *
     * @throws IllegalArgumentException if {@code header} is blank
     */
    static PlanResolver header(String header, TrustedProxies proxies) {
        Objects.requireNonNull(header, "header");
        Objects.requireNonNull(proxies, "proxies");
        if (header.isBlank()) {
            throw new IllegalArgumentException("plan header name must not be blank, was '" + header + "'");
        }
        return request -> {
            if (!proxies.isTrusted(request.getRemoteAddr())) {
                return null;
            }
            String plan = request.getHeader(header);
            return plan == null || plan.isBlank() ? null : plan.strip();
        };
    }

    /**
     * Makes the resolver a {@code plan-from} setting names, for the kinds that need more than the request view: a
     * principal's {@code claim}, {@code attribute} or {@code authority}, and an application {@code bean} (the Spring
     * Boot starter provides one over Spring Security and the application context).
     */
    @FunctionalInterface
    interface Source {
        /**
         * The resolver of {@code kind:name}, or null if this source has none.
         *
         * @param kind {@code claim}, {@code attribute}, {@code authority} or {@code bean}
         * @param name the claim or attribute name, the authority prefix, or the bean name (null: the only bean)
         * @throws IllegalArgumentException if the kind is supported but {@code name} cannot be resolved
         */
        PlanResolver resolver(String kind, String name);
    }
}
