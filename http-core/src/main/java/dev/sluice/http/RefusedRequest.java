package dev.sluice.http;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One request that a policy refused, as {@link HttpRateLimiter#refusals()} keeps it: when, what was asked, which
 * routes matched and what every policy it ran decided. Client identities appear only as the hash their policy
 * counted them under; the method and path are shown as the server reported them, control, format and space
 * characters percent-encoded and at most {@value #MAX_PATH} characters kept, the query string never.
 *
 * @param time when the answer was made, by the system clock
 * @param method the request method, or null when the caller gave no request (a gateway's key resolver)
 * @param path the path without the query string, or null when the caller gave no request
 * @param routes the patterns of the routes ({@code sluice.routes}) that matched, most specific first; where the
 *     server routed the request itself and named the policies, the route it named (a gateway route's id), or none
 * @param refused true if the request was refused (429); false if only shadow policies would have refused it
 * @param policies what each policy that ran decided, in the order they were asked
 */
public record RefusedRequest(Instant time, String method, String path, List<String> routes, boolean refused,
        List<PolicyOutcome> policies) {
    /** The longest method or path kept; longer ones are cut and end with {@code ...}. */
    public static final int MAX_PATH = 256;

    public RefusedRequest {
        Objects.requireNonNull(time, "time");
        routes = List.copyOf(routes);
        policies = List.copyOf(policies);
    }

    /**
     * What one policy decided for the request.
     *
     * @param policy the policy's name
     * @param outcome {@code granted}, {@code refused}, {@code shadow-refused} (refused, but the policy is in shadow
     *     mode so the request was not), {@code skipped} (only probed, since an earlier policy had refused, and it
     *     had a permit), {@code degraded} (the store did not answer and the failure mode decided) or
     *     {@code unavailable} (no decision at all)
     * @param shadow true if the policy was in shadow mode
     * @param key the digest of the client identity the policy counted (its store partition); never the identity
     * @param permits the permits asked for; 0 for a probe
     * @param remaining what the policy had left after the request (a refunded grant's permits back); -1 if unknown
     * @param limit the policy's limit; -1 if unknown
     * @param reset how long until the policy's budget is whole again; null if unknown
     * @param retryAfter how long until the permits asked for could be granted; null if granted or unknown
     */
    public record PolicyOutcome(String policy, String outcome, boolean shadow, String key, long permits,
            long remaining, long limit, Duration reset, Duration retryAfter) {
        public PolicyOutcome {
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(key, "key");
        }
    }
}
