package dev.sluice.limiter.spi;

import dev.sluice.limiter.Keys;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.runtime.RuntimeAccess;
import java.util.Objects;

/**
 * Builds the {@link RateLimiters} every backend returns: the shared runtime (deadlines, retries,
 * failure modes, queueing, lease renewal, statistics, listeners) over a backend's {@link DecisionStore}.
 */
public final class RateLimiterRuntime {
    /** The key prefix used unless another is given. */
    public static final String DEFAULT_KEY_PREFIX = "sluice";

    private RateLimiterRuntime() {}

    /** Limiters over {@code store} with keys under {@value #DEFAULT_KEY_PREFIX}. */
    public static RateLimiters create(DecisionStore store) {
        return create(store, DEFAULT_KEY_PREFIX);
    }

    /**
     * Limiters over {@code store} with keys under {@code keyPrefix}. Closing the returned factory closes
     * the store.
     */
    public static RateLimiters create(DecisionStore store, String keyPrefix) {
        return create(store, keyPrefix, RuntimeSettings.defaults());
    }

    /** {@link #create(DecisionStore, String)} on the given ticker and scheduler. */
    public static RateLimiters create(DecisionStore store, String keyPrefix, RuntimeSettings settings) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(settings, "settings");
        return RuntimeAccess.rateLimiters(store, Keys.checkName("keyPrefix", keyPrefix), settings);
    }
}
