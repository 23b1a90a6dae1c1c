package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.spi.RateLimiterRuntime;
import java.util.Objects;

/**
 * Rate limiters whose state lives in a Hazelcast cluster: every decision is one entry processor on the
 * key's partition owner, atomic, with no lock and at most one network hop. Works from a member (embedded)
 * or a client; the members must have Sluice's classes ({@link SluiceHazelcast#configure}).
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
        Objects.requireNonNull(hazelcast, "hazelcast");
        Objects.requireNonNull(mapName, "mapName");
        Keys.checkName("keyPrefix", keyPrefix);
        HazelcastDecisionStore store = new HazelcastDecisionStore(hazelcast, mapName);
        store.checkClasspath(PROBE_TIMEOUT_MILLIS);
        return RateLimiterRuntime.create(store, keyPrefix);
    }
}
