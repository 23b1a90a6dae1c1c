package dev.sluice.http;

import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import java.util.Objects;

/**
 * A named limit applied per client: what to enforce ({@link LimitSpec}), how the limiter behaves around
 * its store ({@link LimiterOptions}), who counts as one client, and whether it is enforced. The name
 * appears in response headers and problem bodies, so it must be printable ASCII.
 *
 * @param name the policy name, also the limiter's policy in the store key
 * @param spec what each client may do
 * @param options queueing, failure mode and timeouts; see {@link #EDGE_DEFAULTS}
 * @param identity who counts as one client for this policy, or {@code null} for the filter's identity
 *     ({@link HttpRateLimiterConfig#identityResolver()}); when it answers {@code null}, the client address
 * @param shadow true to decide and count without ever refusing (see {@link #withShadow(boolean)})
 */
public record RateLimitPolicy(String name, LimitSpec spec, LimiterOptions options, ClientIdentityResolver identity,
        boolean shadow) {

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
     * @throws NullPointerException if the name, spec or options is null
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

    /** An enforced policy with the filter's identity. */
    public RateLimitPolicy(String name, LimitSpec spec, LimiterOptions options) {
        this(name, spec, options, null, false);
    }

    /** An enforced policy with {@link #EDGE_DEFAULTS} (fail open) and the filter's identity. */
    public static RateLimitPolicy of(String name, LimitSpec spec) {
        return new RateLimitPolicy(name, spec, EDGE_DEFAULTS);
    }

    /**
     * This policy counting clients by {@code identity} instead of the filter's identity, e.g.
     * {@link ClientIdentityResolver#global()} for one budget shared by everyone, or an API key for one
     * policy and the address for another, to limit by both at once.
     */
    public RateLimitPolicy withIdentity(ClientIdentityResolver identity) {
        return new RateLimitPolicy(name, spec, options, Objects.requireNonNull(identity, "identity"), shadow);
    }

    /**
     * This policy in shadow mode ({@code true}) or enforced ({@code false}, the default). A shadow policy
     * takes its permits and answers its headers as if enforced, but a request it would refuse proceeds; its
     * would-be refusals are counted apart ({@link PolicyStatistics#shadowRefused()}, and
     * {@link dev.sluice.limiter.DecisionResult#SHADOW_REFUSED} to the options' listeners), so a limit can be
     * watched before it is enforced.
     */
    public RateLimitPolicy withShadow(boolean shadow) {
        return new RateLimitPolicy(name, spec, options, identity, shadow);
    }
}
