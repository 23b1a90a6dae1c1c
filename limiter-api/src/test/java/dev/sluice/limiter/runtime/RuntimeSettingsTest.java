package dev.sluice.limiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.local.LocalRateLimiters;
import dev.sluice.limiter.local.ManualClock;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The runtime runs on the caller's scheduler and ticker when given them, and leaves the scheduler running. */
final class RuntimeSettingsTest {

    @Test
    void callersScheduler_runsTheDeadlinesAndIsNotShutDownOnClose() throws Exception {
        ScheduledThreadPoolExecutor mine = new ScheduledThreadPoolExecutor(1, r -> new Thread(r, "callers-scheduler"));
        try {
            ControllableStore store = new ControllableStore();
            store.mode = ControllableStore.Mode.HANG;
            RateLimiters limiters = RateLimiterRuntime.create(store, "sluice", RuntimeSettings.defaults().withScheduler(mine),
                    Coalescing.disabled());
            RateLimiter limiter = limiters.limiter("hang", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                    LimiterOptions.builder().failureMode(FailureMode.DENY).decisionTimeout(Duration.ofMillis(20)).build());
            Lease lease = limiter.acquireAsync(1).get(10, TimeUnit.SECONDS);
            assertTrue(lease.isDegraded() && !lease.isAcquired(), "the deadline passed: " + lease);
            assertTrue(mine.getTaskCount() >= 1, "the deadline was scheduled on the caller's scheduler");
            limiters.close();
            assertFalse(mine.isShutdown(), "Sluice never shuts down a scheduler it was given");
        } finally {
            mine.shutdownNow();
        }
    }

    /** Deadlines are read on the given ticker: one that has already passed the deadline ends the wait at once. */
    @Test
    void callersTicker_decidesWhenADeadlineHasPassed() {
        AtomicLong now = new AtomicLong();
        ControllableStore store = new ControllableStore();
        store.failuresLeft.set(1_000); // every attempt fails retryably: only the deadline stops the retries
        // Each reading moves the fake time on by a second, so the first retry already finds the deadline passed.
        RateLimiters limiters = RateLimiterRuntime.create(store, "sluice",
                RuntimeSettings.defaults().withTicker(() -> now.addAndGet(TimeUnit.SECONDS.toNanos(1))),
                Coalescing.disabled());
        try {
            RateLimiter limiter = limiters.limiter("ticker", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                    LimiterOptions.builder().failureMode(FailureMode.DENY).maxRetries(10)
                            .decisionTimeout(Duration.ofMillis(1_500)).build());
            Lease lease = limiter.tryAcquire(1);
            assertTrue(lease.isDegraded() && !lease.isAcquired(), lease.toString());
            assertTrue(store.calls.get() <= 2, "the fake ticker ended the retries, after " + store.calls.get() + " calls");
        } finally {
            limiters.close();
        }
    }

    /** A listener heard durations of System.nanoTime() minus a start read on the injected ticker. */
    @Test
    void listenerDurations_areReadOnTheInjectedTicker() {
        AtomicLong now = new AtomicLong(1_000);
        List<Long> heard = new CopyOnWriteArrayList<>();
        DecisionListener listener = (limiter, result, nanos) -> heard.add(nanos);
        // Each reading moves the fake time on by 10 ns: a decision lasts a few readings, never the JVM's uptime.
        RateLimiters limiters = LocalRateLimiters.create(new ManualClock(Instant.EPOCH), "sluice",
                RuntimeSettings.defaults().withTicker(() -> now.addAndGet(10)));
        try {
            RateLimiter limiter = limiters.limiter("timed", LimitSpec.fixedWindow(1, Duration.ofMinutes(1)),
                    LimiterOptions.builder().listener(listener).build());
            limiter.tryAcquire(1);
            limiter.tryAcquire(1);
            assertEquals(2, heard.size(), heard.toString());
            for (long nanos : heard) {
                assertTrue(nanos > 0 && nanos <= now.get() - 1_000, "a duration on the fake ticker, was " + nanos);
            }
        } finally {
            limiters.close();
        }
    }
}
