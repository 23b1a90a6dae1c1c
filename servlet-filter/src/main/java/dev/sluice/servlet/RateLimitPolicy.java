package dev.sluice.servlet;

import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import java.util.Objects;

/**
 * A named limit applied per client: what to enforce ({@link LimitSpec}) and how the limiter behaves
 * around its store ({@link LimiterOptions}). The name appears in response headers and problem bodies, so
 * it must be printable ASCII.
 *
 * @param name the policy name, also the limiter's policy in the store key
 * @param spec what each client may do
 * @param options queueing, failure mode and timeouts; see {@link #EDGE_DEFAULTS}
 */
public record RateLimitPolicy(String name, LimitSpec spec, LimiterOptions options) {

    /**
     * The options {@link #of(String, LimitSpec)} uses: {@link LimiterOptions#defaults()} but failing open
     * ({@link FailureMode#ALLOW}), because at the HTTP edge an unreachable store should not take the
     * service down.
     */
    public static final LimiterOptions EDGE_DEFAULTS =
            LimiterOptions.defaults().toBuilder().failureMode(FailureMode.ALLOW).build();

    /**
     * Validates the policy.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the name is empty, longer than 256 characters, or not printable ASCII
     */
    public RateLimitPolicy {
        Keys.checkName("policy name", name);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                throw new IllegalArgumentException("policy name must be printable ASCII, was '" + name
                        + "' (U+" + String.format("%04X", (int) c) + " at index " + i + ")");
            }
        }
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(options, "options");
    }

    /** A policy with {@link #EDGE_DEFAULTS} (fail open). */
    public static RateLimitPolicy of(String name, LimitSpec spec) {
        return new RateLimitPolicy(name, spec, EDGE_DEFAULTS);
    }
}
