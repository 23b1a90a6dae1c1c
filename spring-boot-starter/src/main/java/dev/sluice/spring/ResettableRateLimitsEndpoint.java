package dev.sluice.spring;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.limiter.KeyState;
import java.security.Principal;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * {@link RateLimitsEndpoint} with the reset of one client's key: {@code DELETE /actuator/ratelimits/<policy>/<client>}
 * returns the key to a full budget, {@code ?remaining=<n>} to that many permits, as one step where the key lives
 * ({@link dev.sluice.limiter.PartitionedRateLimiter#reset(Object, long)}), and answers the key as the reset left it.
 * Offered only when {@code sluice.reset-enabled=true}: a reset hands out budget. Every reset, and every refused one,
 * is logged at INFO under this class's name with who asked (the authenticated principal, or {@code anonymous}), the
 * policy and the key hash (never the client's identity in clear).
 */
public class ResettableRateLimitsEndpoint extends RateLimitsEndpoint {
    private static final Log AUDIT = LogFactory.getLog(ResettableRateLimitsEndpoint.class);

    public ResettableRateLimitsEndpoint(HttpRateLimiter rateLimiter, String backend, ProtectionReport report) {
        super(rateLimiter, backend, report);
    }

    /**
     * Resets one client's key; null (404) for an unknown policy.
     *
     * @throws InvalidEndpointRequestException (400) for a client of another form, or a remaining out of range
     */
    @DeleteOperation
    public Map<String, Object> reset(@Selector String name,
            @Selector(match = Selector.Match.ALL_REMAINING) String[] client, @Nullable Long remaining,
            SecurityContext security) {
        Client c = client(name, client);
        if (c == null) {
            return null;
        }
        Principal principal = security.getPrincipal();
        String who = principal == null || principal.getName() == null ? "anonymous" : principal.getName();
        KeyState after;
        try {
            after = remaining == null ? c.limiter().reset(c.partition()) : c.limiter().reset(c.partition(), remaining);
        } catch (IllegalArgumentException e) {
            AUDIT.info("refused reset by " + who + ": policy '" + name + "', key hash " + c.partition() + ": "
                    + e.getMessage());
            throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
        }
        AUDIT.info("reset by " + who + ": policy '" + name + "', key hash " + c.partition() + ", to "
                + (remaining == null ? "a full budget" : remaining + " remaining") + "; now " + after.remaining()
                + " of " + after.limit() + (after.onOverflowCell() ? " (on a shared overflow cell, which is never reset)"
                : ""));
        return body(c, after);
    }
}
