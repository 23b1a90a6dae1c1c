package dev.sluice.spring;

import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.PolicyStatistics;
import java.time.Duration;
import java.util.Map;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Whether the store can decide: each check asks it once, with a probe that takes nothing, within the
 * shortest decision timeout of the configured policies. DOWN when it cannot (the message says why); UP
 * otherwise, with the backend and, per policy, how many requests this instance had to decide by failure
 * mode ({@code degraded}) or could not decide ({@code unavailable}) since it started.
 */
public class SluiceHealthIndicator implements HealthIndicator, DisposableBean {
    private static final String PROBE_POLICY = "sluice-health";

    private final HttpRateLimiter rateLimiter;
    private final String backend;
    private final PartitionedRateLimiter<String> probe;

    public SluiceHealthIndicator(HttpRateLimiter rateLimiter, RateLimiters limiters) {
        this.rateLimiter = rateLimiter;
        this.backend = SluiceRateLimiters.backendOf(limiters);
        Duration timeout = rateLimiter.config().policies().values().stream().map(p -> p.options().decisionTimeout())
                .min(Duration::compareTo).orElse(LimiterOptions.defaults().decisionTimeout());
        this.probe = limiters.partitioned(PROBE_POLICY, LimitSpec.fixedWindow(1, Duration.ofSeconds(1)),
                LimiterOptions.builder().failureMode(FailureMode.THROW).maxRetries(0).decisionTimeout(timeout).build());
    }

    @Override
    public Health health() {
        Health.Builder health;
        try (Lease lease = probe.tryAcquire("probe", 0)) {
            health = lease.isDegraded() ? Health.down().withDetail("error", "the store gave no decision")
                    : Health.up();
        } catch (RuntimeException e) {
            health = Health.down().withDetail("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        health.withDetail("backend", backend);
        for (Map.Entry<String, PolicyStatistics> e : rateLimiter.statistics().entrySet()) {
            health.withDetail(e.getKey(), Map.of("degraded", e.getValue().degraded(),
                    "unavailable", e.getValue().unavailable()));
        }
        return health.build();
    }

    @Override
    public void destroy() {
        probe.close();
    }
}
