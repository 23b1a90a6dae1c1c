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

    /** This process's counts for this limiter. */
    LimiterStatistics statistics();

    /**
     * Refuses queued waiters and stops renewing leases. Does not delete shared state: other processes
     * keep their budget and held leases expire in the store.
     */
    @Override
    void close();
}
