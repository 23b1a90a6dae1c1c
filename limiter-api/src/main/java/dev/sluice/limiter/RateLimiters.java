package dev.sluice.limiter;

import dev.sluice.limiter.runtime.Chain;
import dev.sluice.limiter.runtime.PlanRouter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

import java.util.function.Function;

/**
 * Creates limiters on one store (in-process, Hazelcast or JCache). Thread-safe. Closing it closes every
 * limiter it created and stops its background work; it never deletes shared state.
 */
public interface RateLimiters extends AutoCloseable {

    /** The prefix of every key this factory stores; {@code "sluice"} unless configured. */
    String keyPrefix();

    /**
     * A limiter stored under {@code <prefix>/<name>}.
     *
     * @throws IllegalArgumentException if the name is empty or holds control characters
     */
    RateLimiter limiter(String name, LimitSpec spec, LimiterOptions options);

    /** A limiter with {@link LimiterOptions#defaults()}. */
    default RateLimiter limiter(String name, LimitSpec spec) {
        return limiter(name, spec, LimiterOptions.defaults());
    }

    /** A limiter per string partition of {@code policy}, with {@link LimiterOptions#defaults()}. */
    default PartitionedRateLimiter<String> partitioned(String policy, LimitSpec spec) {
        return partitioned(policy, spec, LimiterOptions.defaults());
    }

    /**
     * A limiter per string partition of {@code policy}, each stored under {@code <prefix>/<policy>/<partition>}
     * (see {@link Keys#partitionKey}).
     */
    default PartitionedRateLimiter<String> partitioned(String policy, LimitSpec spec, LimiterOptions options) {
        return partitioned(policy, spec, options, Function.identity());
    }

    /** A limiter per partition of {@code policy}; {@code partitionId} turns a partition into its id string. */
    <P> PartitionedRateLimiter<P> partitioned(String policy, LimitSpec spec, LimiterOptions options,
            Function<? super P, String> partitionId);

    /**
     * A limiter per partition of {@code policy} whose spec is chosen per partition from its plan: {@code planOf}
     * names the partition's plan (null for none), and {@code plans} gives each plan's spec and what an unknown plan
     * gets (the default plan's spec, or a refused lease without retry-after). The plan is not part of the key,
     * {@code <prefix>/<policy>/<partition>}: a partition whose plan changes keeps what it consumed, and the new plan's
     * spec applies to it from its next decision (the rules of a limit changed live). {@link PartitionedRateLimiter#spec()}
     * is {@link Plans#primarySpec()}; {@link PartitionedRateLimiter#specOf} and {@link PartitionedRateLimiter#planOf}
     * tell a partition's. A partition with waiters queued or concurrency leases held keeps the spec it had when they
     * began until they are done. {@code planOf} is called on the calling thread, once per call; it must be fast and
     * must not throw (what it throws, the call throws).
     *
     * <p>The default makes one {@link #partitioned} limiter per plan, all on {@code policy} and so on the same keys, and
     * sends each call to its partition's plan's, so a factory that wraps another (to change options, say) gets planned
     * limiters from its own {@code partitioned}; the runtime's factories decide them with one limiter.
     *
     * @throws IllegalArgumentException if a plan's spec is not accepted by this store (as {@link #limiter} checks),
     *     naming the plan
     */
    default <P> PartitionedRateLimiter<P> planned(String policy, Plans plans, LimiterOptions options,
            Function<? super P, String> partitionId, Function<? super P, String> planOf) {
        return PlanRouter.of(this, policy, plans, options, partitionId, planOf);
    }

    /** {@link #planned(String, Plans, LimiterOptions, Function, Function)} with string partitions. */
    default PartitionedRateLimiter<String> planned(String policy, Plans plans, LimiterOptions options,
            Function<? super String, String> planOf) {
        return planned(policy, plans, options, Function.identity(), planOf);
    }

    /**
     * Stores {@code words} under {@code <prefix>/<name>} unless the key holds a value already, and returns what it
     * holds then, so that replicas can check a setting they must share (a fingerprint of a secret, never the
     * secret). Null if the store keeps no such values (the default, and the in-process store, which no other
     * replica reads); a store with an expiry policy may forget the value.
     *
     * @throws IllegalArgumentException if the name is empty or holds control characters
     * @throws RuntimeException if the store cannot be reached
     */
    default long[] sharedValue(String name, long[] words) {
        return null;
    }

    /** The size of this factory's store: keys held, its bound, evictions and capacity refusals. */
    default StoreStatistics storeStatistics() {
        return StoreStatistics.UNKNOWN;
    }

    /**
     * Limiters on different keys as one, all or nothing: per client and also for everyone, say. Each link is
     * asked in order with the same permits; when one refuses or throws, the grants of the links before it are
     * {@linkplain Lease#refund() refunded} before the caller hears back, so a refused request spends nothing.
     * No link ever admits more than its own limit; while a refund is on its way, a concurrent caller may be
     * refused by an earlier link that will have room again a moment later.
     *
     * <p>The chain acquires, queues and fails as each link does: {@code acquireAsync} waits in each link's
     * queue in turn (holding the earlier links' permits), a link that cannot decide applies its own failure
     * mode, and cancelling refunds. The chain's lease has the smallest remaining of its links and the longest
     * reset; closing it closes every link's lease. Its name is {@code chain(<names>)}; key, spec and options
     * are the first link's; its statistics count the chain's own decisions. Closing the chain closes no link.
     *
     * @throws IllegalArgumentException for fewer than two links
     */
    static RateLimiter chain(RateLimiter... links) {
        return Chain.of(Arrays.asList(Objects.requireNonNull(links, "links")));
    }

    /**
     * {@link #chain(RateLimiter...)} for partitioned limiters: every link is asked for the caller's partition.
     * A limit for everyone is a partitioned limiter whose partition id is constant, e.g.
     * {@code partitioned("global", spec, options, p -> "all")}.
     */
    @SafeVarargs
    static <P> PartitionedRateLimiter<P> chain(PartitionedRateLimiter<? super P>... links) {
        Objects.requireNonNull(links, "links");
        List<PartitionedRateLimiter<? super P>> list = new ArrayList<>(links.length);
        for (PartitionedRateLimiter<? super P> link : links) {
            list.add(link);
        }
        return Chain.ofPartitioned(list);
    }

    @Override
    void close();
}
