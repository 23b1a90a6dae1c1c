package dev.sluice.limiter.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.store.DecisionStore;
import dev.sluice.limiter.store.RateLimiterRuntime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Decisions of failure mode local: counted apart by result, and each a degraded decision. A sliding log on the wall
 * clock, so no window boundary can fall between the decisions.
 */
final class SluiceMetricsFallbackTest {

    @Test
    void localDecisions_countedByResult_andDegraded() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DecisionStore away = requests -> CompletableFuture.failedFuture(new IllegalMonitorStateException("away (test)"));
        try (RateLimiters limiters = RateLimiterRuntime.create(away)) {
            RateLimiter limiter = limiters.limiter("login", LimitSpec.slidingLog(4, Duration.ofMillis(60_500)),
                    LimiterOptions.builder().failureMode(FailureMode.LOCAL).fallbackReplicas(2)
                            .listener(new SluiceMetrics(registry)).build());
            for (int i = 0; i < 5; i++) {
                limiter.tryAcquire(1);
            }
        }
        assertEquals(2.0, registry.get("sluice.fallback.decisions").tags("limiter", "login", "result", "granted")
                .counter().count());
        assertEquals(3.0, registry.get("sluice.fallback.decisions").tags("limiter", "login", "result", "refused")
                .counter().count());
        assertEquals(5, registry.get("sluice.decisions").tags("limiter", "login", "result", "degraded").timer().count());
    }
}
