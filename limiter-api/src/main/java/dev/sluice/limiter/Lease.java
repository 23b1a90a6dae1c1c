package dev.sluice.limiter;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The outcome of one acquisition: granted or refused, with what a caller needs to act on it.
 *
 * <p>Closing a granted concurrency lease releases its permits (at most once, asynchronously); closing
 * any other lease does nothing. Leases are safe to close from any thread, any number of times.
 *
 * <p>{@link #granted}, {@link #refused} and {@link #degraded} make leases that are plain values: immutable,
 * equal when their fields are, with nothing to release; for a limiter's own decisions or a wrapper's.
 */
public interface Lease extends AutoCloseable {

    /** True if the permits were granted. */
    boolean isAcquired();

    /**
     * Permits still available right after this decision, as the store saw them; 0 for a
     * {@linkplain #isDegraded() degraded} lease, where nothing is known.
     */
    long remaining();

    /** The limit the decision was made against. */
    long limit();

    /**
     * For a refusal, how long until the same request could succeed if no one else asked; empty for a
     * grant, a concurrency refusal (a release can come at any moment) or a degraded decision.
     */
    Optional<Duration> retryAfter();

    /**
     * How long until the limiter is back to its full capacity if no one else asks; zero for a degraded
     * lease, where nothing is known.
     */
    Duration resetAfter();

    /** True if the store could not decide and the limiter's {@link FailureMode} decided instead. */
    boolean isDegraded();

    /**
     * True if the store was away and {@link FailureMode#LOCAL} decided on this replica's share of the limit; such a
     * lease is also {@linkplain #isDegraded() degraded}, and its remaining, limit and retry-after are the share's.
     * False by default.
     */
    default boolean isLocalFallback() {
        return false;
    }

    /**
     * For a granted concurrency lease, its fencing token: it increases monotonically per key, so
     * downstream work can reject a holder whose lease has since expired. Empty otherwise.
     */
    OptionalLong fencingToken();

    /** Releases a granted concurrency lease; a no-op for every other lease. Never throws. */
    @Override
    void close();

    /**
     * Gives back a granted lease's permits, as if they had not been taken, by the algorithm's own rule (see
     * the refunds in docs/algorithms.md): a window's count, a bucket's tokens less what refills have made good
     * since, a log's entries, GCRA's arrival time, every component of a composite; a concurrency lease is
     * released. At most once per lease; a refused or degraded lease, or one that cannot be given back (a
     * value lease, a pre-filter's local allowance), gives back nothing.
     *
     * <p>Never throws. The refund is one step on the store with an id of its own: retried like any decision,
     * and applied once however often the store runs it (a Hazelcast re-run after a member crash); one that
     * fails leaves the permits consumed, which can only make the limiter stricter.
     *
     * @return completes with {@code true} when the store gave something back
     */
    default CompletableFuture<Boolean> refund() {
        return CompletableFuture.completedFuture(false);
    }

    /**
     * Settles a granted lease with the real cost of its work, once the work is done and the cost is known: a cost
     * below the reservation gives back the difference by the algorithm's refund rule (as {@link #refund()} does for
     * all of it); a cost above it charges the extra, which the key's budget pays as far as it can, the rest becoming
     * the key's debt, repaid from its budget before any later grant (see docs/settlement.md for the bound this
     * keeps). A composite settles every component; a chain every link.
     *
     * <p>The settlement is one step on the store with an id of its own: retried like any decision, and applied once
     * however often the store runs it (a Hazelcast re-run after a member crash). It does not block.
     *
     * <p>A lease is settled or refunded once: a second call throws. A refused, degraded or value lease, a grant on
     * an overflow cell or a pre-filter's local allowance holds nothing in the store and settles nothing
     * ({@link Settlement.Status#NOTHING_HELD}, as often as asked); a concurrency lease is not settled
     * ({@link Settlement.Status#UNSUPPORTED}: close it).
     *
     * @param cost the real cost, between 0 and {@link LimitSpec#MAX_LIMIT}: above the limit too (a call that used
     *     more tokens than a window allows), the budget paying what it holds and the key owing the rest
     * @return completes, never exceptionally, with what was done
     * @throws IllegalArgumentException if {@code cost} is negative or above {@link LimitSpec#MAX_LIMIT}
     * @throws IllegalStateException if this lease was already settled or refunded
     */
    default CompletableFuture<Settlement> settle(long cost) {
        Settlement.checkCost(cost, null);
        return CompletableFuture.completedFuture(new Settlement(Settlement.Status.NOTHING_HELD, 0, cost, 0));
    }

    /**
     * A granted lease with nothing to release.
     *
     * @param remaining permits still available right after the decision
     * @param limit the limit the decision was made against
     * @param resetAfter how long until the limiter is back to its full capacity
     * @throws NullPointerException if {@code resetAfter} is null
     * @throws IllegalArgumentException if {@code resetAfter} is negative
     */
    static Lease granted(long remaining, long limit, Duration resetAfter) {
        return value(true, remaining, limit, Optional.empty(), resetAfter, false);
    }

    /**
     * A refused lease.
     *
     * @param remaining permits still available right after the decision
     * @param limit the limit the decision was made against
     * @param retryAfter how long until the same request could succeed if no one else asked; empty when no
     *     such time is known (a concurrency refusal)
     * @param resetAfter how long until the limiter is back to its full capacity
     * @throws NullPointerException if {@code retryAfter} or {@code resetAfter} is null
     * @throws IllegalArgumentException if a duration is negative
     */
    static Lease refused(long remaining, long limit, Optional<Duration> retryAfter, Duration resetAfter) {
        return value(false, remaining, limit, retryAfter, resetAfter, false);
    }

    /**
     * A {@linkplain #isDegraded() degraded} lease: the {@link FailureMode} decided because the store gave no
     * decision, so nothing is known of the store (no remaining permits, no retry-after, a zero reset-after).
     *
     * @param acquired true if the failure mode granted the permits
     * @param limit the limit the decision was asked against
     */
    static Lease degraded(boolean acquired, long limit) {
        return value(acquired, 0, limit, Optional.empty(), Duration.ZERO, true);
    }

    private static Lease value(boolean acquired, long remaining, long limit, Optional<Duration> retryAfter,
            Duration resetAfter, boolean degraded) {
        // The components are named after Lease's accessors, so the record implements them.
        record Value(boolean isAcquired, long remaining, long limit, Optional<Duration> retryAfter,
                Duration resetAfter, boolean isDegraded) implements Lease {
            Value {
                Objects.requireNonNull(retryAfter, "retryAfter");
                Objects.requireNonNull(resetAfter, "resetAfter");
                if (retryAfter.isPresent() && retryAfter.get().isNegative()) {
                    throw new IllegalArgumentException("retryAfter must not be negative, was " + retryAfter.get());
                }
                if (resetAfter.isNegative()) {
                    throw new IllegalArgumentException("resetAfter must not be negative, was " + resetAfter);
                }
            }

            @Override
            public OptionalLong fencingToken() {
                return OptionalLong.empty();
            }

            @Override
            public void close() {}

            @Override
            public String toString() {
                return (isAcquired ? "Lease[granted" : "Lease[refused") + (isDegraded ? ", degraded" : "")
                        + ", remaining=" + remaining + ", limit=" + limit
                        + retryAfter.map(d -> ", retryAfter=" + d).orElse("") + "]";
            }
        }
        return new Value(acquired, remaining, limit, retryAfter, resetAfter, degraded);
    }
}
