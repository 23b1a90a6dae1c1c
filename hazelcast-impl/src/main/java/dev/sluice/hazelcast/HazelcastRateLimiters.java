package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.store.RateLimiterRuntime;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Rate limiters whose state lives in a Hazelcast cluster: every decision is one entry processor step on
 * the key's partition owner, atomic, with no lock and at most one network hop. By default
 * ({@link Coalescing#on()}) decisions that arrive while an invocation on the same key is in flight share
 * the next one; {@link Coalescing#disabled()} sends one invocation per decision. Works from a member (embedded) or a client; the members must have Sluice's classes
 * ({@link SluiceHazelcast#configure}).
 *
 * <p>Hazelcast completes its futures on partition and response threads, which must never block, so each
 * decision is continued, and the futures the limiters return are completed, on a callback executor: a small
 * pool of daemon threads (as many as the machine's processors, at least 2) that Sluice creates, or one the
 * user supplies ({@link #create(HazelcastInstance, String, String, Coalescing, Executor)}); never the
 * common pool.
 *
 * <p>Closing the returned {@link RateLimiters} stops its limiters and shuts down the pool Sluice created; it
 * never shuts the Hazelcast instance down, nor a user's executor.
 */
public final class HazelcastRateLimiters {
    /** How long {@code create} waits for the members to answer its classpath probe. */
    static final long PROBE_TIMEOUT_MILLIS = 10_000;

    private HazelcastRateLimiters() {}

    /**
     * Limiters in the map {@value SluiceHazelcast#DEFAULT_MAP_NAME}, with keys under
     * {@value RateLimiterRuntime#DEFAULT_KEY_PREFIX}.
     *
     * @throws IllegalStateException if this instance or a member runs a Hazelcast outside the supported range
     *     (5.3 to 5.7; the message names the version), or cannot read Sluice's classes (the message says what
     *     to put on which classpath)
     */
    public static RateLimiters create(HazelcastInstance hazelcast) {
        return create(hazelcast, SluiceHazelcast.DEFAULT_MAP_NAME, RateLimiterRuntime.DEFAULT_KEY_PREFIX);
    }

    /** Like {@link #create(HazelcastInstance)}, coalescing as {@code coalescing} says. */
    public static RateLimiters create(HazelcastInstance hazelcast, Coalescing coalescing) {
        return create(hazelcast, SluiceHazelcast.DEFAULT_MAP_NAME, RateLimiterRuntime.DEFAULT_KEY_PREFIX, coalescing);
    }

    /**
     * Limiters in the map {@code mapName} (and {@code mapName + "-ephemeral"} for ephemeral limiters,
     * {@code mapName + "-async-backup"} for {@link dev.sluice.limiter.Durability#REPLICATED_ASYNC} ones),
     * with keys under {@code keyPrefix}. Members must have been configured with
     * {@link SluiceHazelcast#configure(com.hazelcast.config.Config, String)} for the same map name.
     *
     * <p>Blocks while it probes each member once (up to 10 s when the cluster is slow; an unreachable
     * cluster is not an error here, decisions then follow their failure mode).
     *
     * @throws IllegalStateException if this instance or a member runs an unsupported Hazelcast or cannot
     *     read Sluice's classes
     * @throws IllegalArgumentException if {@code keyPrefix} is not a valid name
     */
    public static RateLimiters create(HazelcastInstance hazelcast, String mapName, String keyPrefix) {
        return create(hazelcast, mapName, keyPrefix, Coalescing.on());
    }

    /**
     * Limiters in the map {@code mapName} with keys under {@code keyPrefix}, coalescing concurrent
     * decisions as {@code coalescing} says ({@link Coalescing#on()} turns it on,
     * {@link Coalescing#disabled()} off: one invocation per decision). The other overloads use
     * {@link Coalescing#on()}.
     *
     * @throws IllegalStateException if this instance or a member runs an unsupported Hazelcast or cannot
     *     read Sluice's classes
     * @throws IllegalArgumentException if {@code keyPrefix} is not a valid name
     */
    public static RateLimiters create(HazelcastInstance hazelcast, String mapName, String keyPrefix,
            Coalescing coalescing) {
        check(hazelcast, mapName, keyPrefix, coalescing);
        return create(new HazelcastDecisionStore(hazelcast, mapName, null), keyPrefix, coalescing,
                RuntimeSettings.defaults());
    }

    /**
     * Like {@link #create(HazelcastInstance, String, String, Coalescing)}, with every decision
     * continued, and the returned futures completed, on {@code callbackExecutor} instead of a pool Sluice
     * creates. Sluice never shuts it down, so it may be shared with other limiters or the application.
     *
     * <p>It must run each task on a thread other than the one that submits it (a submitting thread may be
     * one of Hazelcast's partition threads, which must never block or run user code), and accept tasks
     * until the limiters are closed: a task it rejects leaves its decision to time out. The common pool is a
     * poor choice: on a 2-core host it has a single thread.
     *
     * @throws IllegalStateException if this instance or a member runs an unsupported Hazelcast or cannot
     *     read Sluice's classes
     * @throws IllegalArgumentException if {@code keyPrefix} is not a valid name
     */
    public static RateLimiters create(HazelcastInstance hazelcast, String mapName, String keyPrefix,
            Coalescing coalescing, Executor callbackExecutor) {
        check(hazelcast, mapName, keyPrefix, coalescing);
        Objects.requireNonNull(callbackExecutor, "callbackExecutor");
        return create(new HazelcastDecisionStore(hazelcast, mapName, callbackExecutor), keyPrefix, coalescing,
                RuntimeSettings.defaults());
    }

    /**
     * Like {@link #create(HazelcastInstance, String, String, Coalescing, Executor)}, with the
     * runtime on {@code settings}' ticker and scheduler ({@link RuntimeSettings}); a {@code null}
     * {@code callbackExecutor} means a pool Sluice creates.
     *
     * @throws IllegalStateException if this instance or a member runs an unsupported Hazelcast or cannot
     *     read Sluice's classes
     * @throws IllegalArgumentException if {@code keyPrefix} is not a valid name
     */
    public static RateLimiters create(HazelcastInstance hazelcast, String mapName, String keyPrefix,
            Coalescing coalescing, Executor callbackExecutor, RuntimeSettings settings) {
        check(hazelcast, mapName, keyPrefix, coalescing);
        Objects.requireNonNull(settings, "settings");
        return create(new HazelcastDecisionStore(hazelcast, mapName, callbackExecutor), keyPrefix, coalescing,
                settings);
    }

    private static void check(HazelcastInstance hazelcast, String mapName, String keyPrefix,
            Coalescing coalescing) {
        Objects.requireNonNull(hazelcast, "hazelcast");
        Objects.requireNonNull(mapName, "mapName");
        Objects.requireNonNull(coalescing, "coalescing");
        Keys.checkName("keyPrefix", keyPrefix);
    }

    private static RateLimiters create(HazelcastDecisionStore store, String keyPrefix, Coalescing coalescing,
            RuntimeSettings settings) {
        try {
            store.checkClasspath(PROBE_TIMEOUT_MILLIS);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
        return RateLimiterRuntime.create(store, keyPrefix, settings, coalescing);
    }
}
