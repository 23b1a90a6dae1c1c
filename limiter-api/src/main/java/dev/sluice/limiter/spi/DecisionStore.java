package dev.sluice.limiter.spi;

import dev.sluice.limiter.algorithm.Verdict;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a backend implements: run one {@link StepRequest} atomically where the key's state lives, with
 * the clock of the node that runs it, and store the resulting state as {@link Verdict} describes. The
 * shared runtime ({@link RateLimiterRuntime}) adds everything else: deadlines, retries, failure modes,
 * queueing, lease renewal, statistics and listeners.
 *
 * <p>Implementations are thread-safe. The verdicts they return carry no state
 * ({@link Verdict#withoutState()}).
 */
public interface DecisionStore extends AutoCloseable {

    /**
     * Starts one step. Must not block the caller for long; the future may complete on any thread and
     * dependent stages attached by the runtime are cheap.
     */
    CompletableFuture<Verdict> submit(StepRequest request);

    /**
     * Starts one step whose caller stops waiting at {@code deadlineNanos} (a {@link System#nanoTime()}
     * reading), or {@link Long#MAX_VALUE} for a step worth running however late (the runtime passes that for
     * renewals and releases). A store that holds requests before sending them must not send one whose deadline
     * has passed, nor one whose returned future the runtime cancelled (its caller cancelled), so a caller who
     * gave up is not charged. A step already sent may still run; its answer, if the future is not cancelled,
     * is still awaited, and what a late grant took is given back. The default ignores the deadline and calls
     * {@link #submit(StepRequest)}.
     */
    default CompletableFuture<Verdict> submit(StepRequest request, long deadlineNanos) {
        return submit(request);
    }

    /**
     * Runs one step and waits at most {@code timeoutNanos} for it. The default waits on
     * {@link #submit}; a store that decides in the calling thread may override it.
     *
     * @throws TimeoutException if no verdict arrived in time (the step may still run)
     * @throws ExecutionException wrapping the store's failure
     * @throws InterruptedException if interrupted while waiting
     */
    default Verdict execute(StepRequest request, long timeoutNanos)
            throws TimeoutException, ExecutionException, InterruptedException {
        return submit(request).get(timeoutNanos, TimeUnit.NANOSECONDS);
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
     * Where the runtime continues after a step completes, and so where callers' futures complete, or
     * {@code null} (the default) to continue on the thread that completed the step. A store whose
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
    default void checkSpec(dev.sluice.limiter.LimitSpec spec) {}

    /** What the store knows of its size and bound; the default knows nothing. */
    default dev.sluice.limiter.StoreStatistics statistics() {
        return dev.sluice.limiter.StoreStatistics.UNKNOWN;
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

    /** Releases what the store itself owns (never the user's cluster or cache). */
    @Override
    default void close() {}
}
