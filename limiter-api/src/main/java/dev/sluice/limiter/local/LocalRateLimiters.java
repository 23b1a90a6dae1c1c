package dev.sluice.limiter.local;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.time.InstantSource;
import java.util.Objects;

/**
 * The in-process backend: state in segmented maps, each step atomic per key (under its segment's lock), idle
 * state removed once its time to live has passed. For single-instance applications and for tests; replicas do
 * not share it.
 *
 * <p>The store holds at most its {@link Capacity} of keys ({@link Capacity#defaults()}: a quarter of the heap
 * at {@value Capacity#ESTIMATED_BYTES_PER_KEY} bytes a key, least recently used state evicted at the bound);
 * {@link #create(InstantSource, Capacity)} sets another bound or policy.
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

    /** Limiters on the given clock, the store bounded by {@code capacity}. */
    public static RateLimiters create(InstantSource clock, Capacity capacity) {
        return create(clock, RateLimiterRuntime.DEFAULT_KEY_PREFIX, RuntimeSettings.defaults(), capacity);
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
        return create(clock, keyPrefix, settings, Capacity.defaults());
    }

    /** {@link #create(InstantSource, String, RuntimeSettings)} with the store bounded by {@code capacity}. */
    public static RateLimiters create(InstantSource clock, String keyPrefix, RuntimeSettings settings,
            Capacity capacity) {
        return RateLimiterRuntime.create(new LocalDecisionStore(Objects.requireNonNull(clock, "clock"),
                Objects.requireNonNull(capacity, "capacity")), keyPrefix, settings,
                Coalescing.disabled()); // decided in the calling thread: nothing is ever in flight to wait behind
    }
}
