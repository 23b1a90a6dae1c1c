package dev.sluice.spring;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.RefusedRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/ratelimitrefusals}: the latest requests a policy refused on this instance, newest first (see
 * {@link HttpRateLimiter#refusals()}): when, the method and the path without its query string, the routes that
 * matched, and what every policy that ran decided, with the hash of the client identity it counted, never the
 * identity. At most {@code sluice.trace.refused-requests} of them (default 100; 0 keeps none), so a flood of refusals
 * replaces entries instead of adding them. Requests that only a shadow policy refused are listed with
 * {@code refused: false}.
 */
@Endpoint(id = "ratelimitrefusals")
public class RateLimitRefusalsEndpoint {
    private final HttpRateLimiter rateLimiter;

    public RateLimitRefusalsEndpoint(HttpRateLimiter rateLimiter) {
        this.rateLimiter = rateLimiter;
    }

    @ReadOperation
    public Map<String, Object> refusals() {
        List<Map<String, Object>> requests = new ArrayList<>();
        for (RefusedRequest r : rateLimiter.refusals()) {
            Map<String, Object> request = new LinkedHashMap<>();
            request.put("time", r.time().toString());
            request.put("method", r.method());
            request.put("path", r.path());
            request.put("routes", r.routes());
            request.put("refused", r.refused());
            List<Map<String, Object>> policies = new ArrayList<>(r.policies().size());
            for (RefusedRequest.PolicyOutcome o : r.policies()) {
                Map<String, Object> policy = new LinkedHashMap<>();
                policy.put("policy", o.policy());
                policy.put("outcome", o.outcome());
                policy.put("mode", o.shadow() ? "shadow" : "enforced");
                policy.put("key", o.key());
                policy.put("permits", o.permits());
                policy.put("remaining", o.remaining());
                policy.put("limit", o.limit());
                policy.put("reset", text(o.reset()));
                policy.put("retryAfter", text(o.retryAfter()));
                policies.add(policy);
            }
            request.put("policies", policies);
            requests.add(request);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("kept", rateLimiter.config().refusalTrace());
        body.put("refusals", requests);
        return body;
    }

    private static String text(Duration d) {
        return d == null ? null : d.toString();
    }
}
