package dev.sluice.limiter.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

final class SluiceMetricsTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final SluiceMetrics metrics = new SluiceMetrics(registry);
    private final ManualClock clock = new ManualClock();
    private final RateLimiters limiters = LocalRateLimiters.create(clock);

    @AfterEach
    void close() {
        limiters.close();
    }

    private long count(String limiter, String result) {
        var timer = registry.find("sluice.decisions").tag("limiter", limiter).tag("result", result).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void decisions_areTimedByLimiterAndResult() {
        RateLimiter limiter = limiters.limiter("email", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)),
                LimiterOptions.builder().listener(metrics).build());
        for (int i = 0; i < 5; i++) {
            limiter.tryAcquire(1);
        }
        assertEquals(3, count("email", "granted"));
        assertEquals(2, count("email", "refused"));
        assertEquals(0, count("email", "degraded"));
        assertTrue(registry.find("sluice.decisions").timer().getId().getDescription().length() > 10, "described");
    }

    @Test
    void partitionedLimiter_isTaggedByPolicyNeverByKey() {
        PartitionedRateLimiter<String> login = limiters.partitioned("login",
                LimitSpec.fixedWindow(1, Duration.ofMinutes(1)), LimiterOptions.builder().listener(metrics).build());
        login.tryAcquire("alice", 1);
        login.tryAcquire("bob", 1);
        login.tryAcquire("bob", 1);
        assertEquals(2, count("login", "granted"));
        assertEquals(1, count("login", "refused"));
        registry.getMeters().forEach(m -> m.getId().getTags().forEach(t -> {
            assertTrue(!t.getValue().contains("alice") && !t.getValue().contains("bob"), m.getId().toString());
        }));
    }

    @Test
    void queueGauge_reportsQueuedPermits() throws Exception {
        RateLimiter limiter = limiters.limiter("queued", LimitSpec.fixedWindow(3, Duration.ofMinutes(1)),
                LimiterOptions.builder().listener(metrics).queueLimit(5).pollInterval(Duration.ofMillis(2)).build());
        limiter.tryAcquire(3);
        CompletableFuture<?> waiting = limiter.acquireAsync(3);
        assertEquals(3.0, registry.find("sluice.queue.permits").tag("limiter", "queued").gauge().value());
        clock.advance(Duration.ofMinutes(1));
        waiting.get(10, TimeUnit.SECONDS);
        assertEquals(0.0, registry.find("sluice.queue.permits").tag("limiter", "queued").gauge().value());
    }

    @Test
    void degradedDecisions_areCountedAsDegraded() {
        RateLimiter limiter = limiters.limiter("broken", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().listener(metrics).failureMode(FailureMode.ALLOW).build());
        limiter.tryAcquire(1);
        assertEquals(1, count("broken", "granted"));
        assertNull(registry.find("sluice.decisions").tag("result", "unknown").timer());
    }

    /** A refusal at the store's bound counts under its limiter, and the store's meters follow its statistics. */
    @Test
    void capacityRefusals_andStoreMeters() {
        RateLimiters bounded = LocalRateLimiters.create(clock,
                dev.sluice.limiter.Capacity.maxKeys(2).refuseNewKeys());
        metrics.bindStore(bounded);
        PartitionedRateLimiter<String> p = bounded.partitioned("bounded", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().listener(metrics).failureMode(FailureMode.DENY).build());
        p.tryAcquire("a", 1);
        p.tryAcquire("b", 1);
        p.tryAcquire("c", 1);
        p.tryAcquire("d", 1);
        assertEquals(2.0, registry.find("sluice.capacity.refusals").tag("limiter", "bounded").counter().count());
        assertEquals(2, count("bounded", "degraded"), "a capacity refusal is a degraded decision too");
        assertEquals(2.0, registry.find("sluice.store.keys").tag("store", "sluice").gauge().value());
        assertEquals(2.0, registry.find("sluice.store.max.keys").tag("store", "sluice").gauge().value());
        assertEquals(2.0, registry.find("sluice.store.capacity.refusals").tag("store", "sluice").functionCounter().count());
        assertEquals(0.0, registry.find("sluice.store.evictions").tag("store", "sluice").functionCounter().count());
        bounded.close();
    }

    /** Decisions on overflow cells reach the store's meters: decisions, refusals, and the cells held. */
    @Test
    void overflowMeters_followTheStore() {
        RateLimiters bounded = LocalRateLimiters.create(clock, dev.sluice.limiter.Capacity.maxKeys(3).withOverflowCells(1));
        metrics.bindStore(bounded);
        PartitionedRateLimiter<String> p = bounded.partitioned("cells", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                LimiterOptions.builder().listener(metrics).build());
        p.tryAcquire("a", 1);
        p.tryAcquire("b", 1);
        assertTrue(p.tryAcquire("c", 1).isAcquired(), "c on the one cell");
        assertFalse(p.tryAcquire("d", 1).isAcquired(), "d on the same, spent cell");
        assertEquals(2.0, registry.find("sluice.store.overflow.decisions").tag("store", "sluice").functionCounter().count());
        assertEquals(1.0, registry.find("sluice.store.overflow.refusals").tag("store", "sluice").functionCounter().count());
        assertEquals(1.0, registry.find("sluice.store.overflow.cells").tag("store", "sluice").gauge().value());
        assertEquals(0, count("cells", "degraded"), "a decision on a cell is the store's own");
        bounded.close();
    }
}
