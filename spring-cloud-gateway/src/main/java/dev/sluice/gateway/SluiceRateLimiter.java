package dev.sluice.gateway;

import dev.sluice.limiter.Keys;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.http.HttpRateLimiter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.core.publisher.Mono;

/**
 * A {@code RateLimiter} for the gateway's {@code RequestRateLimiter} filter on a Sluice policy, so the budget
 * lives in the application's Sluice store (Hazelcast, JCache, in-process) instead of Redis. The route names the
 * policy ({@code args: {rate-limiter: "#{@sluiceRateLimiter}", sluice-rate-limiter.policy: per-client}}); the
 * key resolver's key is hashed and counted under it, one permit a request (or {@code permits}). A refusal
 * carries the policy's {@code RateLimit-Policy}, {@code RateLimit} and {@code Retry-After} headers; the status
 * and the empty body are {@code RequestRateLimiter}'s (use the {@code Sluice} filter for the problem body). When
 * the store cannot decide, the policy's failure mode answers: {@code allow} allows, {@code deny} refuses
 * (the gateway's 429, not a 503), {@code throw} fails the request.
 */
public class SluiceRateLimiter extends AbstractRateLimiter<SluiceRateLimiter.Config> {
    /** The prefix of the route's arguments for this limiter. */
    public static final String CONFIGURATION_PROPERTY_NAME = "sluice-rate-limiter";

    private final HttpRateLimiter rateLimiter;

    public SluiceRateLimiter(HttpRateLimiter rateLimiter, ConfigurationService configurationService) {
        super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
    }

    @Override
    public Mono<Response> isAllowed(String routeId, String id) {
        Config config = getConfig().get(routeId);
        String policy = config == null ? null : config.getPolicy();
        PartitionedRateLimiter<String> limiter = policy == null ? null : rateLimiter.limiter(policy);
        if (limiter == null) {
            return Mono.error(new IllegalArgumentException("route '" + routeId + "' gives " + CONFIGURATION_PROPERTY_NAME
                    + ".policy=" + policy + "; expected a policy of sluice.policies "
                    + rateLimiter.config().policies().keySet()));
        }
        long permits = config.getPermits();
        String partition = Keys.sha256(id);
        return Mono.fromFuture(() -> limiter.acquireAsync(partition, permits)).map(lease -> {
            if (lease.isAcquired()) {
                lease.close(); // a concurrency lease cannot outlive the call here: RequestRateLimiter has no end hook
                return new Response(true, Map.of());
            }
            return new Response(false, headers(rateLimiter, policy, partition, lease, permits));
        });
    }

    private static Map<String, String> headers(HttpRateLimiter rateLimiter, String policy, String partition,
            Lease lease, long permits) {
        Map<String, String> headers = new LinkedHashMap<>();
        rateLimiter.refusal(policy, partition, lease, permits).headers()
                .forEach(h -> headers.put(h.getKey(), h.getValue()));
        return headers;
    }

    /** A route's arguments: {@code sluice-rate-limiter.policy} and {@code sluice-rate-limiter.permits}. */
    public static class Config {
        private String policy;
        private long permits = 1;

        public String getPolicy() {
            return policy;
        }

        public Config setPolicy(String policy) {
            this.policy = policy;
            return this;
        }

        public long getPermits() {
            return permits;
        }

        public Config setPermits(long permits) {
            this.permits = permits;
            return this;
        }
    }
}
