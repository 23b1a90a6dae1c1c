package dev.sluice.prefilter;

import dev.sluice.limiter.Lease;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * What a pre-filter answers in this process for one limiter (all partitions of a partitioned one share it),
 * keyed by store key: {@link RefusalCache} and {@link AllowancePool}, one per {@link PrefilterMode}, and
 * {@link PassThrough} for concurrency limiters. The caller has checked the permits against the limit.
 */
interface Prefilter {

    /** How to reach the store for one key: the wrapped limiter, or one partition of it. */
    interface Remote {
        Lease tryAcquire(long permits);

        CompletableFuture<Lease> acquireAsync(long permits);

        Lease acquire(long permits, Duration maxWait) throws InterruptedException;

        /**
         * {@link #acquireAsync(long)} mapped by {@code f}; cancelling the result cancels the store's future,
         * so a waiter in the wrapped limiter's queue is removed. A lease that arrives for a cancelled result
         * is closed.
         */
        default CompletableFuture<Lease> acquireAsync(long permits, Function<Lease, PrefilterLease> f) {
            CompletableFuture<Lease> source = acquireAsync(permits);
            CompletableFuture<Lease> out = new CompletableFuture<>();
            source.whenComplete((l, failure) -> {
                if (failure != null) {
                    out.completeExceptionally(failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure);
                    return;
                }
                PrefilterLease lease;
                try {
                    lease = f.apply(l);
                } catch (RuntimeException e) {
                    out.completeExceptionally(e);
                    return;
                }
                if (!out.complete(lease)) {
                    lease.close();
                }
            });
            out.whenComplete((l, failure) -> {
                if (out.isCancelled()) {
                    source.cancel(false);
                }
            });
            return out;
        }
    }

    /** One decision; blocks at most for the store's steps. */
    PrefilterLease tryAcquire(String key, Remote remote, long permits);

    /** One decision without blocking; queues in the wrapped limiter when its options say so. */
    CompletableFuture<Lease> acquireAsync(String key, Remote remote, long permits);

    /**
     * Waits in the wrapped limiter's queue (which must have one) for up to {@code maxWait}; only a local
     * allowance is used first, since a cached refusal would not wait.
     */
    PrefilterLease acquire(String key, Remote remote, long permits, Duration maxWait) throws InterruptedException;

    /** Forgets what this process knows of {@code key} (a refusal, a local allowance): the key was reset. */
    default void forget(String key) {}

    /** Forgets what this process knows of every key: the limiter is closed. */
    void close();
}
