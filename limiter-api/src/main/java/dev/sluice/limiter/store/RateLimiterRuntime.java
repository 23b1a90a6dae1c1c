package dev.sluice.limiter.store;

import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.runtime.DefaultRateLimiters;
import java.util.Objects;

/**
 * Builds the {@link RateLimiters} every backend returns: the shared runtime (coalescing, deadlines, retries,
 * failure modes, queueing, lease renewal, statistics, listeners) over a backend's {@link DecisionStore}.
 */
public final class RateLimiterRuntime {
    /** The key prefix used unless another is given. */
    public static final String DEFAULT_KEY_PREFIX = "sluice";

    private RateLimiterRuntime() {}

    /** Limiters over {@code store} with keys under {@value #DEFAULT_KEY_PREFIX}, without coalescing. */
    public static RateLimiters create(DecisionStore store) {
        return create(store, DEFAULT_KEY_PREFIX);
    }

    /**
     * Limiters over {@code store} with keys under {@code keyPrefix}, without coalescing. Closing the returned
     * factory closes the store.
     */
    public static RateLimiters create(DecisionStore store, String keyPrefix) {
        return create(store, keyPrefix, RuntimeSettings.defaults(), Coalescing.disabled());
    }

    /** {@link #create(DecisionStore, String)} on the given ticker and scheduler, coalescing as given. */
    public static RateLimiters create(DecisionStore store, String keyPrefix, RuntimeSettings settings,
            Coalescing coalescing) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(coalescing, "coalescing");
        return create(new Coalescer(store, coalescing), keyPrefix, settings);
    }

    /** Limiters whose decisions go through {@code coalescer} (a test may hold it to read its counters). */
    public static RateLimiters create(Coalescer coalescer, String keyPrefix, RuntimeSettings settings) {
        Objects.requireNonNull(coalescer, "coalescer");
        Objects.requireNonNull(settings, "settings");
        return new DefaultRateLimiters(coalescer, Keys.checkName("keyPrefix", keyPrefix), settings);
    }
}
