package dev.sluice.servlet;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Writes the rate-limit answer of a request: the IETF {@code RateLimit-Policy} and {@code RateLimit}
 * fields (draft-ietf-httpapi-ratelimit-headers-10), the optional legacy trio, {@code Retry-After}, and
 * RFC 9457 problem bodies.
 *
 * <p>Every number of seconds is rounded up, so a client that waits as told is never early. A degraded
 * grant (the store could not decide and the policy failed open) knows no remaining count: it carries the
 * policy and {@code RateLimit-Degraded: true}, but no {@code RateLimit} field.
 */
final class Responses {
    static final String POLICY_HEADER = "RateLimit-Policy";
    static final String RATELIMIT_HEADER = "RateLimit";
    static final String DEGRADED_HEADER = "RateLimit-Degraded";
    static final String PROBLEM_JSON = "application/problem+json";

    private Responses() {}

    /** Whole seconds, rounded up; never negative. */
    static long ceilSeconds(Duration d) {
        long millis = Math.max(0, d.toMillis());
        return millis / 1000 + (millis % 1000 == 0 ? 0 : 1);
    }

    /** The window a quota applies to, in seconds; -1 for a concurrency limit, which has none. */
    static long windowSeconds(LimitSpec spec) {
        long millis;
        if (spec instanceof LimitSpec.FixedWindow s) {
            millis = s.windowMillis();
        } else if (spec instanceof LimitSpec.SlidingWindow s) {
            millis = s.windowMillis();
        } else if (spec instanceof LimitSpec.SlidingLog s) {
            millis = s.windowMillis();
        } else if (spec instanceof LimitSpec.SlidingCounter s) {
            millis = s.windowMillis();
        } else if (spec instanceof LimitSpec.TokenBucket s) {
            // The time to fill the bucket from empty: the quota q is spent and earned back over it.
            millis = ((s.tokenLimit() + s.tokensPerPeriod() - 1) / s.tokensPerPeriod()) * s.replenishmentPeriodMillis();
        } else if (spec instanceof LimitSpec.Gcra s) {
            // The time to earn back a whole burst at the sustained rate.
            millis = multiplyDivideCeil(s.burst(), s.periodMillis(), s.permitsPerPeriod());
        } else {
            millis = -1; // concurrency: no window
        }
        return millis < 0 ? -1 : ceilSeconds(Duration.ofMillis(millis));
    }

    private static long multiplyDivideCeil(long a, long b, long c) {
        return BigInteger.valueOf(a).multiply(BigInteger.valueOf(b))
                .add(BigInteger.valueOf(c - 1)).divide(BigInteger.valueOf(c)).longValueExact();
    }

    /** An sf-string: the name in double quotes, with {@code "} and {@code \} escaped. */
    static String sfString(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.append('"').toString();
    }

    /** {@code "name";q=10;w=60} (no {@code w} for a concurrency limit). */
    static String policyField(RateLimitPolicy policy) {
        long w = windowSeconds(policy.spec());
        return sfString(policy.name()) + ";q=" + policy.spec().limit() + (w > 0 ? ";w=" + w : "");
    }

    /** Sets the rate-limit headers for a decision (grant or refusal). */
    static void rateLimitHeaders(HttpServletResponse response, RateLimitPolicy policy, Lease lease, boolean legacy) {
        response.setHeader(POLICY_HEADER, policyField(policy));
        if (lease.isDegraded()) {
            response.setHeader(DEGRADED_HEADER, "true");
            return;
        }
        long remaining = Math.max(0, lease.remaining());
        long reset = ceilSeconds(lease.resetAfter());
        response.setHeader(RATELIMIT_HEADER, sfString(policy.name()) + ";r=" + remaining + ";t=" + reset);
        if (legacy) {
            response.setHeader("RateLimit-Limit", Long.toString(policy.spec().limit()));
            response.setHeader("RateLimit-Remaining", Long.toString(remaining));
            response.setHeader("RateLimit-Reset", Long.toString(reset));
        }
    }

    /** The {@code Retry-After} seconds of a refusal: rounded up, at least 1 (also when the limiter gave none). */
    static long retryAfterSeconds(Lease lease) {
        return Math.max(1, lease.retryAfter().map(Responses::ceilSeconds).orElse(1L));
    }

    /** Answers {@code 429 Too Many Requests} with {@code Retry-After} and a problem body. */
    static void tooManyRequests(HttpServletResponse response, RateLimitPolicy policy, Lease lease, boolean legacy,
            URI type) throws IOException {
        long retryAfter = retryAfterSeconds(lease);
        response.setStatus(429);
        rateLimitHeaders(response, policy, lease, legacy);
        response.setHeader("Retry-After", Long.toString(retryAfter));
        String detail = "The rate limit of policy '" + policy.name() + "' is exhausted; retry after " + retryAfter
                + (retryAfter == 1 ? " second." : " seconds.");
        problem(response, type, 429, "Too Many Requests", detail, policy.name(), retryAfter);
    }

    /** Answers {@code 503 Service Unavailable} when no decision could be had (failure mode THROW). */
    static void unavailable(HttpServletResponse response, RateLimitPolicy policy, URI type) throws IOException {
        response.setStatus(503);
        response.setHeader("Retry-After", "1");
        problem(response, type, 503, "Service Unavailable",
                "No rate-limit decision could be made for policy '" + policy.name() + "'; try again shortly.",
                policy.name(), 1);
    }

    private static void problem(HttpServletResponse response, URI type, int status, String title, String detail,
            String policy, long retryAfter) throws IOException {
        String body = "{\"type\":" + json(type.toString()) + ",\"title\":" + json(title) + ",\"status\":" + status
                + ",\"detail\":" + json(detail) + ",\"policy\":" + json(policy) + ",\"retryAfter\":" + retryAfter + "}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        response.setHeader("Cache-Control", "no-store");
        response.setContentType(PROBLEM_JSON);
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(bytes.length);
        try (OutputStream out = response.getOutputStream()) {
            out.write(bytes);
        }
    }

    /** A JSON string literal. */
    static String json(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
