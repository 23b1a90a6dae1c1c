package dev.sluice.limiter.store;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.StoreStatistics;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * What a backend implements: run requests on one key atomically where the key's state lives, with the clock
 * of the node that runs them, and store the resulting state. The runtime adds everything else: coalescing
 * ({@link Coalescer}), deadlines, retries, failure modes, queueing, lease renewal, statistics and listeners.
 *
 * <p>Implementations are thread-safe.
 */
@FunctionalInterface
public interface DecisionStore extends AutoCloseable {

    /**
     * Runs {@code requests}, all on one key and durability, in their order, each step on the state the previous
     * one left, as one atomic step on that key; answers each request's verdict (carrying no state) or its own
     * failure, in the same order. A failed future fails every request of the call. Must not block the caller for
     * long; the future may complete on any thread, and what the runtime attaches to it is cheap.
     */
    CompletableFuture<? extends Outcomes> run(List<StepRequest> requests);

    /**
     * {@link #run} for a caller that blocks until the answer: a store that can decide in the calling thread (an
     * in-process cache) does so here, where an asynchronous caller's request still goes to the store's own threads.
     * The default is {@link #run}.
     */
    default CompletableFuture<? extends Outcomes> runForBlockingCaller(List<StepRequest> requests) {
        return run(requests);
    }

    /**
     * What a failure of {@link #run} means to the runtime: the default passes it on. A store whose client library
     * throws {@link IllegalStateException} or {@link IllegalArgumentException} for transient trouble wraps them,
     * since the runtime treats exactly those as the caller's usage errors.
     */
    default Throwable translate(Throwable failure) {
        return failure;
    }

    /**
     * True if a failure is transient (a lost connection, a migrating partition) and the step may be
     * retried within the deadline. Retrying a step that did run charges its permits twice, so the runtime
     * retries only what the backend says is safe enough.
     */
    default boolean isRetryable(Throwable failure) {
        return false;
    }

    /**
     * Where the runtime continues after a call completes, and so where callers' futures complete, or
     * {@code null} (the default) to continue on the thread that completed the call. A store whose
     * futures complete on threads that must never block (a Hazelcast partition or response thread)
     * returns an executor it owns, so a caller's blocking callback cannot stall the store.
     */
    default Executor callbackExecutor() {
        return null;
    }

    /**
     * Checks, when a limiter is created, that this store can keep {@code spec}'s state as long as it matters;
     * the default accepts every spec.
     *
     * @throws IllegalArgumentException naming the spec, what the store allows and how to fix it
     */
    default void checkSpec(LimitSpec spec) {}

    /**
     * What the store knows of its size and bound; the default knows nothing. The runtime fills in the counts it
     * sees itself (capacity refusals, overflow decisions) where the store reports -1.
     */
    default StoreStatistics statistics() {
        return StoreStatistics.UNKNOWN;
    }

    /**
     * Stores {@code words} under {@code key} unless the key holds a value already, and returns what the key holds
     * then: for a setting every replica must share, such as the fingerprint of a secret. No algorithm ever runs on
     * such a key. The default keeps nothing and returns null: the replicas cannot be compared through this store.
     *
     * @throws RuntimeException if the store cannot be reached
     */
    default long[] putIfAbsent(String key, long[] words) {
        return null;
    }

    /**
     * How many replicas of the application share this store as its platform sees them now (an embedded Hazelcast
     * member: the members of its cluster), or -1 (the default) where the store cannot know (a client of a cluster,
     * a cache): {@link dev.sluice.limiter.FailureMode#LOCAL} then needs the replicas configured. Over-counting is
     * safe (a smaller local share); it is read after each answer of a limiter with that failure mode, so it is cheap.
     */
    default int members() {
        return -1;
    }

    /** Releases what the store itself owns (never the user's cluster or cache). */
    @Override
    default void close() {}
}
