package dev.sluice.http;

import dev.sluice.limiter.Keys;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import java.math.BigInteger;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the rate-limit answer of a request: the {@code RateLimit-Policy} and {@code RateLimit} fields
 * of draft-ietf-httpapi-ratelimit-headers-10, one item per policy that applied, the optional legacy trio,
 * {@code Retry-After}, and RFC 9457 problem bodies with the draft's problem types and its one extension
 * member, {@code violated-policies}; and, where the configuration asks for it
 * ({@link HttpRateLimiterConfig#problemDecisions()}), {@code refused-by}: for each refusing policy its name, the
 * digest of the client identity it counted ({@code key}, never the identity), {@code remaining}, {@code limit},
 * {@code reset} (seconds until its budget is whole again) and {@code retry-after}, both rounded up.
 *
 * <p>Every number of seconds is rounded up, so a client that waits as told is never early.
 *
 * <p>{@code t} is the draft's reset parameter: "the number of seconds until additional quota associated with
 * the quota policy is made available" (section 4.1.2). That is not the wait for this request's cost, which
 * {@code Retry-After} gives: at cost 3 a token bucket's next refill comes before the third token. A decision
 * carries {@code r}, the retry-after for its own permits and how long until the limit is whole again, so
 * {@code t} is worked out per algorithm, and left out (it is optional) where the decision does not carry it:
 * <ul>
 *   <li>fixed window and calendar window: until the window ends;
 *   <li>token bucket: until the next refill ({@code resetAfter} less the whole periods still needed after
 *       it); none for a full bucket, to which nothing more arrives;
 *   <li>GCRA: until the next permit is earned ({@code resetAfter} less the emission intervals of the
 *       permits still missing after it); none when the burst is whole;
 *   <li>sliding window, sliding log and sliding counter: on a refusal that lacked exactly one permit, its
 *       retry-after (the moment that one permit comes back); otherwise none. When the oldest permit in the
 *       window leaves (its segment, its log entry, the previous window's weight) is not part of the
 *       decision, and the next segment boundary may return nothing: a guess could be too early;
 *   <li>concurrency and composites: none (a release can come at any moment; a composite's smallest remaining
 *       can grow with any component).
 * </ul>
 * A degraded decision (the store could not decide and the failure mode did) knows no remaining count:
 * its policy is listed in {@code RateLimit-Policy} and marked by {@code RateLimit-Degraded: true}, but has
 * no {@code RateLimit} item.
 */
final class Responses {
    static final String POLICY_HEADER = "RateLimit-Policy";
    static final String RATELIMIT_HEADER = "RateLimit";
    static final String DEGRADED_HEADER = "RateLimit-Degraded";
    static final String PROBLEM_JSON = "application/problem+json";

    private Responses() {}

    /** Whole seconds, rounded up; never negative. */
    static long ceilSeconds(Duration d) {
        return ceilSeconds(d.toMillis());
    }

    private static long ceilSeconds(long millis) {
        long m = Math.max(0, millis);
        return m / 1000 + (m % 1000 == 0 ? 0 : 1);
    }

    /** The window a quota applies to ({@code w}), in seconds; -1 for a concurrency limit, which has none. */
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
            millis = multiplyDivide(s.burst(), s.periodMillis(), s.permitsPerPeriod(), true);
        } else if (spec instanceof LimitSpec.CalendarWindow s) {
            // A calendar month or year has no one length: the period's mean Gregorian length, as java.time estimates it.
            return switch (s.period()) {
                case DAY -> ChronoUnit.DAYS.getDuration().getSeconds();
                case WEEK -> ChronoUnit.WEEKS.getDuration().getSeconds();
                case MONTH -> ChronoUnit.MONTHS.getDuration().getSeconds();
                case YEAR -> ChronoUnit.YEARS.getDuration().getSeconds();
            };
        } else if (spec instanceof LimitSpec.AllOf all) {
            // q is the smallest component limit: its component's window is the one q applies to.
            LimitSpec binding = all.components().get(0);
            for (LimitSpec c : all.components()) {
                binding = c.limit() < binding.limit() ? c : binding;
            }
            return windowSeconds(binding);
        } else {
            millis = -1; // concurrency: no window
        }
        return millis < 0 ? -1 : ceilSeconds(millis);
    }

    /**
     * The reset parameter {@code t} of a decision, in milliseconds: until more quota arrives (see the class
     * comment), or -1 when it is not known.
     *
     * @param permits the permits the request asked for
     * @param remaining what the policy has left (after a refund, if it had one)
     */
    static long untilMoreQuotaMillis(LimitSpec spec, Lease lease, long permits, long remaining) {
        long reset = lease.resetAfter().toMillis();
        long left = Math.max(0, lease.remaining());
        long t;
        if (spec instanceof LimitSpec.FixedWindow || spec instanceof LimitSpec.CalendarWindow) {
            t = reset;
        } else if (spec instanceof LimitSpec.TokenBucket s) {
            if (remaining >= s.tokenLimit()) {
                return -1; // full: nothing more arrives until some is used
            }
            long period = s.replenishmentPeriodMillis();
            long periods = (s.tokenLimit() - left + s.tokensPerPeriod() - 1) / s.tokensPerPeriod();
            t = reset - (periods - 1) * period;
        } else if (spec instanceof LimitSpec.Gcra s) {
            if (remaining >= s.burst()) {
                return -1; // the whole burst: nothing more is earned until some is used
            }
            t = reset - multiplyDivide(s.burst() - 1 - left, s.periodMillis(), s.permitsPerPeriod(), false);
        } else if ((spec instanceof LimitSpec.SlidingWindow || spec instanceof LimitSpec.SlidingLog
                || spec instanceof LimitSpec.SlidingCounter)
                && !lease.isAcquired() && permits - left == 1 && lease.retryAfter().isPresent()) {
            t = lease.retryAfter().get().toMillis(); // the moment the one missing permit returns
        } else {
            return -1; // the sliding algorithms otherwise, concurrency, composites
        }
        return t > 0 ? t : -1;
    }

    /** {@code a * b / c}, rounded up or down, without overflow. */
    private static long multiplyDivide(long a, long b, long c, boolean up) {
        BigInteger product = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b));
        if (up) {
            product = product.add(BigInteger.valueOf(c - 1));
        }
        return product.divide(BigInteger.valueOf(c)).longValueExact();
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

    /**
     * {@code "name";q=10;w=60}; for a concurrency limit {@code "name";q=4;qu="concurrent-requests"}, with no
     * window.
     */
    static String policyField(RateLimitPolicy policy) {
        long w = windowSeconds(policy.spec());
        return sfString(policy.name()) + ";q=" + policy.spec().limit()
                + (w > 0 ? ";w=" + w : ";qu=\"concurrent-requests\"");
    }

    /** {@code ;pk=:<base64>:}, the partition (the identity's digest, {@link Keys#decodeDigest}) as an sf-binary. */
    private static String partitionKey(PolicyDecision d) {
        return ";pk=:" + Base64.getEncoder().encodeToString(Keys.decodeDigest(d.partition())) + ":";
    }

    /** The {@code RateLimit} item of a decision, or null when it has none (degraded, unavailable). */
    static String limitItem(PolicyDecision d, boolean partitionKeys) {
        Lease lease = d.lease();
        if (lease == null || lease.isDegraded()) {
            return null;
        }
        long millis = untilMoreQuotaMillis(d.policy().spec(), lease, d.permits(), remaining(d));
        long t = millis < 0 ? -1 : ceilSeconds(millis);
        return sfString(d.policy().name()) + ";r=" + remaining(d) + (t >= 0 ? ";t=" + t : "")
                + (partitionKeys ? partitionKey(d) : "");
    }

    /** What the policy has left: the lease's remaining, plus what was given back after another policy refused. */
    static long remaining(PolicyDecision d) {
        long r = Math.max(0, d.lease().remaining());
        return d.refunded() > 0 ? Math.min(d.lease().limit(), r + d.refunded()) : r;
    }

    /** Sets the rate-limit headers for the decisions of a request (granted or refused), unless switched off. */
    static void rateLimitHeaders(Answer response, List<PolicyDecision> decisions, HttpRateLimiterConfig cfg) {
        if (!cfg.headers() || decisions.isEmpty()) {
            return;
        }
        List<String> policies = new ArrayList<>(decisions.size());
        List<String> limits = new ArrayList<>(decisions.size());
        boolean degraded = false;
        PolicyDecision tightest = null;
        for (PolicyDecision d : decisions) {
            policies.add(policyField(d.policy()) + planParameter(d, cfg) + (cfg.partitionKeys() ? partitionKey(d) : ""));
            String item = limitItem(d, cfg.partitionKeys());
            if (item != null) {
                limits.add(item);
                if (tightest == null || remaining(d) < remaining(tightest)) {
                    tightest = d;
                }
            }
            degraded |= d.kind() == PolicyDecision.Kind.DEGRADED;
        }
        response.setHeader(POLICY_HEADER, String.join(", ", policies));
        if (!limits.isEmpty()) {
            response.setHeader(RATELIMIT_HEADER, String.join(", ", limits));
        }
        if (degraded) {
            response.setHeader(DEGRADED_HEADER, "true");
        }
        if (cfg.legacyHeaders() && tightest != null) {
            // One value each: the policy closest to exhaustion, as the draft suggests when only one is shown.
            response.setHeader("RateLimit-Limit", Long.toString(tightest.policy().spec().limit()));
            response.setHeader("RateLimit-Remaining", Long.toString(remaining(tightest)));
            response.setHeader("RateLimit-Reset", Long.toString(ceilSeconds(tightest.lease().resetAfter())));
        }
    }

    /** The {@code Retry-After} seconds of a refusal: rounded up, at least 1 (also when the limiter gave none). */
    static long retryAfterSeconds(Lease lease) {
        return Math.max(1, lease.retryAfter().map(Responses::ceilSeconds).orElse(1L));
    }

    /**
     * Answers {@code 429 Too Many Requests}: {@code Retry-After} the longest wait among the refusing
     * policies, the headers of every policy, and a quota-exceeded problem body naming the refusing ones.
     */
    static void tooManyRequests(Answer response, List<PolicyDecision> decisions, HttpRateLimiterConfig cfg) {
        long retryAfter = 1;
        List<String> violated = new ArrayList<>();
        for (PolicyDecision d : decisions) {
            if (d.refuses()) {
                retryAfter = Math.max(retryAfter, retryAfterSeconds(d.lease()));
                violated.add(d.policy().name());
            }
        }
        response.setStatus(429);
        rateLimitHeaders(response, decisions, cfg);
        response.setHeader("Retry-After", Long.toString(retryAfter));
        String detail = (violated.size() == 1 ? "The rate limit of policy " + quoted(violated) + " is exhausted"
                : "The rate limits of policies " + quoted(violated) + " are exhausted")
                + plansDetail(decisions, cfg) + "; retry after " + retryAfter + (retryAfter == 1 ? " second." : " seconds.");
        List<Map<String, Object>> plans = refusingPlans(decisions, cfg);
        if (!plans.isEmpty()) {
            response.extensions.put("plans", plans);
        }
        if (cfg.problemDecisions()) {
            response.extensions.put("refused-by", refusedBy(decisions));
        }
        problem(response, cfg.problemType(), 429, "Too Many Requests", detail, violated);
    }

    /** The {@code refused-by} member: each refusing policy's name, key hash and numbers (see the class comment). */
    private static List<Map<String, Object>> refusedBy(List<PolicyDecision> decisions) {
        List<Map<String, Object>> refused = new ArrayList<>();
        for (PolicyDecision d : decisions) {
            if (d.refuses()) {
                Map<String, Object> member = new LinkedHashMap<>();
                member.put("policy", d.policy().name());
                member.put("key", d.partition());
                member.put("remaining", remaining(d));
                member.put("limit", d.lease().limit());
                member.put("reset", ceilSeconds(d.lease().resetAfter()));
                member.put("retry-after", retryAfterSeconds(d.lease()));
                refused.add(java.util.Collections.unmodifiableMap(member));
            }
        }
        return List.copyOf(refused);
    }

    /**
     * Answers {@code 503 Service Unavailable} when a policy got no decision and its failure mode did not let the
     * request through ({@code THROW}, or {@code DENY}): the refusal is about the store, not the client's quota.
     */
    static void unavailable(Answer response, List<PolicyDecision> decisions, HttpRateLimiterConfig cfg) {
        List<String> violated = new ArrayList<>();
        for (PolicyDecision d : decisions) {
            if (d.unavailable()) {
                violated.add(d.policy().name());
            }
        }
        response.setStatus(503);
        rateLimitHeaders(response, decisions, cfg);
        response.setHeader("Retry-After", "1");
        problem(response, HttpRateLimiterConfig.TEMPORARY_REDUCED_CAPACITY, 503, "Service Unavailable",
                "No rate-limit decision could be made for " + (violated.size() == 1 ? "policy " : "policies ")
                        + quoted(violated) + "; try again shortly.", violated);
    }

    /** Answers {@code 400 Bad Request} for a request whose client identity cannot become a key. */
    static void badRequest(Answer response, String detail) {
        response.setStatus(400);
        response.setHeader("Cache-Control", "no-store");
        String body = "{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,\"detail\":" + json(detail) + "}";
        response.body = body.getBytes(StandardCharsets.UTF_8);
        response.detail = detail;
    }

    private static String quoted(List<String> names) {
        List<String> q = new ArrayList<>(names.size());
        names.forEach(n -> q.add("'" + n + "'"));
        return String.join(", ", q);
    }

    /**
     * The problem body: RFC 9457 members, the draft's {@code violated-policies}, and the answer's extensions
     * (nothing else unless the configuration asked for them).
     */
    private static void problem(Answer response, URI type, int status, String title, String detail,
            List<String> violated) {
        StringBuilder policies = new StringBuilder("[");
        for (String name : violated) {
            policies.append(policies.length() > 1 ? "," : "").append(json(name));
        }
        StringBuilder body = new StringBuilder("{\"type\":").append(json(type.toString())).append(",\"title\":")
                .append(json(title)).append(",\"status\":").append(status).append(",\"detail\":").append(json(detail))
                .append(",\"violated-policies\":").append(policies.append(']'));
        response.extensions.forEach((name, value) -> {
            body.append(',').append(json(name)).append(':');
            jsonValue(body, value);
        });
        body.append('}');
        response.setHeader("Cache-Control", "no-store");
        response.body = body.toString().getBytes(StandardCharsets.UTF_8);
        response.detail = detail;
    }

    // ---- plans ----

    /**
     * {@code ;plan="pro"}, the plan a policy's limit is of, for a decision under one of its policy's plans; else
     * nothing. The draft's {@code q} and {@code w} are then that plan's.
     */
    static String planParameter(PolicyDecision d, HttpRateLimiterConfig cfg) {
        String plan = cfg.planOf(d.policy());
        return plan == null ? "" : ";plan=" + sfString(plan);
    }

    /** {@code " (plan 'free': 100 per 3600 s)"} for each refusing policy decided under a plan, in order; else empty. */
    private static String plansDetail(List<PolicyDecision> decisions, HttpRateLimiterConfig cfg) {
        StringBuilder detail = new StringBuilder();
        for (PolicyDecision d : decisions) {
            String plan = d.refuses() ? cfg.planOf(d.policy()) : null;
            if (plan != null) {
                long w = windowSeconds(d.policy().spec());
                detail.append(detail.length() == 0 ? " (" : "; ").append("policy '").append(d.policy().name())
                        .append("' of plan '").append(plan).append("': ").append(d.policy().spec().limit())
                        .append(w > 0 ? " per " + w + " s" : " at once");
            }
        }
        return detail.length() == 0 ? "" : detail.append(')').toString();
    }

    /** The {@code plans} member: for each refusing policy decided under a plan, the policy, the plan and its limit. */
    private static List<Map<String, Object>> refusingPlans(List<PolicyDecision> decisions, HttpRateLimiterConfig cfg) {
        List<Map<String, Object>> plans = new ArrayList<>();
        for (PolicyDecision d : decisions) {
            String plan = d.refuses() ? cfg.planOf(d.policy()) : null;
            if (plan != null) {
                Map<String, Object> member = new LinkedHashMap<>();
                member.put("policy", d.policy().name());
                member.put("plan", plan);
                member.put("limit", d.policy().spec().limit());
                long w = windowSeconds(d.policy().spec());
                if (w > 0) {
                    member.put("window", w);
                }
                plans.add(java.util.Collections.unmodifiableMap(member));
            }
        }
        return List.copyOf(plans);
    }

    /**
     * Answers {@code 403 Forbidden} for a client whose plan none of the refusing policies knows, when they refuse
     * unknown plans: no quota applies to it, so there is no {@code Retry-After} and no {@code RateLimit} item.
     */
    static void noPlan(Answer response, List<PolicyDecision> refused, HttpRateLimiterConfig cfg) {
        List<String> violated = new ArrayList<>();
        for (PolicyDecision d : refused) {
            violated.add(d.policy().name());
        }
        response.setStatus(403);
        problem(response, NO_PLAN, 403, "Forbidden", "No plan of " + (violated.size() == 1 ? "policy " : "policies ")
                + quoted(violated) + " applies to this client.", violated);
    }

    /** The problem type of a client without a known plan, for a policy that refuses unknown plans. */
    static final URI NO_PLAN = URI.create("about:blank");

    /**
     * An answer being written: status, headers in the order they were first set (a header set again
     * replaces its value), and a problem body, which is always {@value #PROBLEM_JSON} in UTF-8.
     */
    static final class Answer {
        int status;
        final Map<String, String> headers = new LinkedHashMap<>();
        byte[] body;
        String detail;
        /** Problem members beyond RFC 9457's and {@code violated-policies}, in order; values are JSON-shaped. */
        final Map<String, Object> extensions = new LinkedHashMap<>();

        void setStatus(int status) {
            this.status = status;
        }

        void setHeader(String name, String value) {
            headers.put(name, value);
        }
    }

    /** Appends a string, a number, a boolean, a list or a map of these as JSON. */
    private static void jsonValue(StringBuilder sb, Object value) {
        if (value instanceof String text) {
            sb.append(json(text));
        } else if (value instanceof Number || value instanceof Boolean) {
            sb.append(value);
        } else if (value instanceof List<?> list) {
            sb.append('[');
            for (int i = 0; i < list.size(); i++) {
                sb.append(i > 0 ? "," : "");
                jsonValue(sb, list.get(i));
            }
            sb.append(']');
        } else if (value instanceof Map<?, ?> map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                sb.append(first ? "" : ",").append(json(String.valueOf(e.getKey()))).append(':');
                jsonValue(sb, e.getValue());
                first = false;
            }
            sb.append('}');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + value);
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
