package dev.sluice.limiter.local;

import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.spi.RateLimiterRuntime;
import java.time.InstantSource;
import java.util.Objects;

/**
 * The in-process backend: state in a {@link java.util.concurrent.ConcurrentHashMap}, each step atomic
 * per key ({@code compute}), idle state evicted once its time to live has passed. For single-instance
 * applications and for tests; replicas do not share it.
 */
public final class LocalRateLimiters {
    private LocalRateLimiters() {}

    /** Limiters on the system clock. */
    public static RateLimiters create() {
        return create(InstantSource.system());
    }

    /** Limiters on the given clock, e.g. a {@link ManualClock} in tests. */
    public static RateLimiters create(InstantSource clock) {
        return RateLimiterRuntime.create(new LocalDecisionStore(Objects.requireNonNull(clock, "clock")));
    }

    /** Limiters on the given clock with keys under {@code keyPrefix}. */
    public static RateLimiters create(InstantSource clock, String keyPrefix) {
        return create(clock, keyPrefix, RuntimeSettings.defaults());
    }

    /**
     * Limiters on the given clock (decisions) and runtime settings (the ticker for deadlines and waits, the
     * scheduler), with keys under {@code keyPrefix}.
     */
    public static RateLimiters create(InstantSource clock, String keyPrefix, RuntimeSettings settings) {
        return RateLimiterRuntime.create(new LocalDecisionStore(Objects.requireNonNull(clock, "clock")), keyPrefix,
                settings);
    }
}
