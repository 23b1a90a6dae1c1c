package dev.sluice.demo;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.RateLimitPolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The demo's policies: one per algorithm, each with a limit of 10 per client, each guarding the endpoint
 * {@code /api/<policy name>}.
 *
 * <p>The options are the filter's edge defaults (fail open) with a 3 s decision timeout instead of 1 s:
 * the first decisions of a cold JVM on a busy laptop can take longer than a second, and a demo that
 * quietly fails open would show 200 where it promises 429 (the tour checks that no answer is degraded).
 */
final class DemoPolicies {
    /** The policy the tour and the tests use: exact, so 12 requests give exactly 10 × 200 and 2 × 429. */
    static final String TOUR_POLICY = "sliding-log";

    /** Each policy's limit. */
    static final long LIMIT = 10;

    /** The options of every policy. */
    static final LimiterOptions OPTIONS =
            RateLimitPolicy.EDGE_DEFAULTS.toBuilder().decisionTimeout(Duration.ofSeconds(3)).build();

    private DemoPolicies() {}

    /** Policy name to spec, in the order the endpoints are listed. */
    static Map<String, LimitSpec> specs() {
        Map<String, LimitSpec> specs = new LinkedHashMap<>();
        specs.put("fixed-window", LimitSpec.fixedWindow(LIMIT, Duration.ofMinutes(1)));
        specs.put("sliding-window", LimitSpec.slidingWindow(LIMIT, Duration.ofMinutes(1), 6));
        specs.put("sliding-log", LimitSpec.slidingLog(LIMIT, Duration.ofMinutes(1)));
        specs.put("sliding-counter", LimitSpec.slidingCounter(LIMIT, Duration.ofMinutes(1)));
        specs.put("token-bucket", LimitSpec.tokenBucket(LIMIT, 1, Duration.ofSeconds(6)));
        specs.put("gcra", LimitSpec.gcra(LIMIT, Duration.ofMinutes(1), LIMIT));
        specs.put("concurrency", LimitSpec.concurrency(LIMIT, Duration.ofSeconds(10)));
        return specs;
    }

    /** One sentence per policy for the start-up banner and the index page. */
    static Map<String, String> descriptions() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("fixed-window", "10 per minute, windows aligned to the clock");
        d.put("sliding-window", "10 per minute, six 10 s segments");
        d.put("sliding-log", "10 in any 60 s (exact)");
        d.put("sliding-counter", "10 per minute, previous minute weighted by overlap");
        d.put("token-bucket", "bucket of 10, one token back every 6 s");
        d.put("gcra", "10 per minute, burst of 10 (one permit back every 6 s)");
        d.put("concurrency", "10 requests in flight; add ?sleep=2000 to hold one for 2 s");
        return d;
    }

    /** The header the demo identifies clients by. */
    static final String API_KEY_HEADER = "X-Api-Key";

    /**
     * The filter configuration: every policy, each on its own exact path, clients by {@value #API_KEY_HEADER}
     * (else address). The demo keys by a header so that one machine can play several clients; its keys are
     * not checked, so any caller can take a new budget by sending a new key. A real service identifies by
     * address (the filter's default), or by keys that an earlier filter has authenticated.
     */
    static HttpRateLimiterConfig filterConfig() {
        HttpRateLimiterConfig.Builder b = HttpRateLimiterConfig.builder().apiKeyHeader(API_KEY_HEADER);
        specs().forEach((name, spec) -> b.policy(new RateLimitPolicy(name, spec, OPTIONS)).route("/api/" + name, name));
        return b.build();
    }
}
