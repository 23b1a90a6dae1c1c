package dev.sluice.limiter;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A limit on one key, shared by every process that uses the same key and store.
 *
 * <p>Permits: {@code 0} probes (is at least one permit available?) without consuming; a negative
 * count, or one above the spec's limit, throws {@link IllegalArgumentException}. When the store gives
 * no decision within {@link LimiterOptions#decisionTimeout()}, the {@link FailureMode} applies.
 * Implementations are thread-safe.
 */
public interface RateLimiter extends AutoCloseable {

    /** The name this limiter was created with. */
    String name();

    /** The key under which the state is stored. */
    String key();

    LimitSpec spec();

    LimiterOptions options();

    /**
     * Makes one decision and never queues. Blocks only for the store's step, at most the decision
     * timeout.
     *
     * @throws IllegalArgumentException if {@code permits} is out of range
     * @throws DecisionUnavailableException under {@link FailureMode#THROW} when the store gave no decision
     * @throws IllegalStateException if the limiter is closed or the key holds another algorithm's state
     */
    Lease tryAcquire(long permits);

    /** {@code tryAcquire(1)}. */
    default Lease tryAcquire() {
        return tryAcquire(1);
    }

    /**
     * Acquires, waiting in the local queue if refused and {@link LimiterOptions#queueLimit()} allows.
     * Never blocks. Queued requests retry when the refusal said they could succeed and complete when
     * granted; cancelling the future removes the waiter, and cancels a first decision still on its way (a
     * backend that has not sent it yet never does, so it charges nothing). A full queue, or a closed
     * limiter, completes the future with a refused lease. Under {@link FailureMode#THROW} an unavailable
     * store completes it exceptionally with {@link DecisionUnavailableException}.
     *
     * <p>The future completes on the thread that obtained the decision; chain heavy work with an
     * {@code *Async} stage on your own executor.
     *
     * @throws IllegalArgumentException if {@code permits} is out of range
     */
    CompletableFuture<Lease> acquireAsync(long permits);

    /**
     * Acquires, waiting up to {@code maxWait} in the local queue. Returns a refused lease if the permits
     * were not granted in time; {@code maxWait <= 0} never waits, and one too long to count in nanoseconds
     * (over 292 years) waits as long as it takes.
     *
     * @throws InterruptedException if interrupted while waiting; the waiter is removed
     */
    Lease acquire(long permits, Duration maxWait) throws InterruptedException;

    /**
     * Reads the key's state as the next request for one permit would find it, consuming nothing and writing
     * nothing: one step where the key's state lives, with that node's clock. A key without state of its own whose
     * decisions are made on an overflow cell is read as the cell ({@link KeyState#onOverflowCell()}). Blocks for
     * the store's step, at most the decision timeout; the failure mode does not apply.
     *
     * @throws DecisionUnavailableException when the store gave no answer within the decision timeout
     * @throws IllegalStateException if the limiter is closed or the key holds another algorithm's state
     * @throws UnsupportedOperationException if this limiter holds no state of its own (a chain; the default, for
     *     implementations written before this method)
     */
    default KeyState inspect() {
        throw new UnsupportedOperationException(getClass().getName() + " does not read its key's state");
    }

    /**
     * Returns the key to a full budget, atomically, as one step where its state lives: the state is removed, and
     * the next request finds the key as new. For a concurrency limiter this drops every lease held on the key:
     * their holders keep running, but their permits count no more, so up to twice the limit may then run at once
     * until they release. A key whose decisions are made on an overflow cell is left on it: a cell is shared by
     * other keys, and resetting it would hand its budget to whoever mints new keys; the cell frees as its own
     * state expires. Processes that queue or pre-filter for this key learn of the reset only from their next
     * request (the {@code local-prefilter} of this process forgets what it holds for the key). Blocks as
     * {@link #inspect()} does.
     *
     * @return the key's state after the reset
     * @throws DecisionUnavailableException when the store gave no answer within the decision timeout
     * @throws IllegalStateException if the limiter is closed or the key holds another algorithm's state
     * @throws UnsupportedOperationException as {@link #inspect()}
     */
    default KeyState reset() {
        throw new UnsupportedOperationException(getClass().getName() + " does not reset its key");
    }

    /**
     * Sets the key, atomically, to the state a fresh key holds after taking {@code limit - remaining} permits at
     * the store's time: {@code remaining} permits now, the rest returning as the algorithm returns them (a
     * composite leaves each component {@code min(remaining, its limit)}). Otherwise as {@link #reset()}; a
     * concurrency limiter only takes its full limit.
     *
     * @param remaining between 0 and the spec's limit; for a concurrency limiter, the limit
     * @return the key's state after the reset
     * @throws IllegalArgumentException if {@code remaining} is out of range, naming the value and the bound
     * @throws DecisionUnavailableException when the store gave no answer within the decision timeout
     * @throws IllegalStateException if the limiter is closed or the key holds another algorithm's state
     * @throws UnsupportedOperationException as {@link #inspect()}
     */
    default KeyState reset(long remaining) {
        throw new UnsupportedOperationException(getClass().getName() + " does not reset its key");
    }

    /** This process's counts for this limiter. */
    LimiterStatistics statistics();

    /**
     * Refuses queued waiters and stops renewing leases. Does not delete shared state: other processes
     * keep their budget and held leases expire in the store.
     */
    @Override
    void close();
}
