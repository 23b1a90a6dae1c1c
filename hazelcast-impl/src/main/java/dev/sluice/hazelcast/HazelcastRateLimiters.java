package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.spi.RateLimiterRuntime;
import java.util.Objects;

/**
 * Rate limiters whose state lives in a Hazelcast cluster: every decision is one entry processor step on
 * the key's partition owner, atomic, with no lock and at most one network hop. By default
 * ({@link HazelcastCoalescing#defaults()}) decisions that arrive while an invocation to the same partition
 * is in flight share the next hop; {@link HazelcastCoalescing#disabled()} sends one invocation per
 * decision. Works from a member (embedded) or a client; the members must have Sluice's classes
 * ({@link SluiceHazelcast#configure}).
 *
 * <p>Closing the returned {@link RateLimiters} stops its limiters; it never shuts the Hazelcast
 * instance down.
 */
public final class HazelcastRateLimiters {
    /** How long {@code create} waits for the members to answer its classpath probe. */
    static final long PROBE_TIMEOUT_MILLIS = 10_000;

    private HazelcastRateLimiters() {}

    /**
     * Limiters in the map {@value SluiceHazelcast#DEFAULT_MAP_NAME}, with keys under
     * {@value RateLimiterRuntime#DEFAULT_KEY_PREFIX}.
     *
     * @throws IllegalStateException if this instance or a member cannot read Sluice's classes; the
     *     message says what to put on which classpath
     */
    public static RateLimiters create(HazelcastInstance hazelcast) {
        return create(hazelcast, SluiceHazelcast.DEFAULT_MAP_NAME, RateLimiterRuntime.DEFAULT_KEY_PREFIX);
    }

    /** Like {@link #create(HazelcastInstance)}, coalescing as {@code coalescing} says. */
    public static RateLimiters create(HazelcastInstance hazelcast, HazelcastCoalescing coalescing) {
        return create(hazelcast, SluiceHazelcast.DEFAULT_MAP_NAME, RateLimiterRuntime.DEFAULT_KEY_PREFIX, coalescing);
    }

    /**
     * Limiters in the map {@code mapName} (and {@code mapName + "-ephemeral"} for ephemeral limiters),
     * with keys under {@code keyPrefix}. Members must have been configured with
     * {@link SluiceHazelcast#configure(com.hazelcast.config.Config, String)} for the same map name.
     *
     * <p>Blocks while it probes each member once (up to 10 s when the cluster is slow; an unreachable
     * cluster is not an error here, decisions then follow their failure mode).
     *
     * @throws IllegalStateException if this instance or a member cannot read Sluice's classes
     * @throws IllegalArgumentException if {@code keyPrefix} is not a valid name
     */
    public static RateLimiters create(HazelcastInstance hazelcast, String mapName, String keyPrefix) {
        return create(hazelcast, mapName, keyPrefix, HazelcastCoalescing.defaults());
    }

    /**
     * Limiters in the map {@code mapName} with keys under {@code keyPrefix}, coalescing concurrent
     * decisions as {@code coalescing} says ({@link HazelcastCoalescing#on()} turns it on,
     * {@link HazelcastCoalescing#disabled()} off: one invocation per decision). The other overloads use
     * {@link HazelcastCoalescing#defaults()}.
     *
     * @throws IllegalStateException if this instance or a member cannot read Sluice's classes
     * @throws IllegalArgumentException if {@code keyPrefix} is not a valid name
     */
    public static RateLimiters create(HazelcastInstance hazelcast, String mapName, String keyPrefix,
            HazelcastCoalescing coalescing) {
        Objects.requireNonNull(hazelcast, "hazelcast");
        Objects.requireNonNull(mapName, "mapName");
        Objects.requireNonNull(coalescing, "coalescing");
        Keys.checkName("keyPrefix", keyPrefix);
        HazelcastDecisionStore store = new HazelcastDecisionStore(hazelcast, mapName, coalescing);
        store.checkClasspath(PROBE_TIMEOUT_MILLIS);
        return RateLimiterRuntime.create(store, keyPrefix);
    }
}
