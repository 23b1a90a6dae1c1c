package dev.sluice.benchmarks;

import java.util.concurrent.CompletableFuture;

/**
 * One limiter implementation under test. Keys {@code 0..keys-1} of two policies: open keys have a budget
 * far above any demand (every decision is granted), closed keys have one token per hour and are spent
 * before measuring (every decision is refused). A workload mixes the two to get its refusal rate.
 * Implementations are thread-safe.
 */
interface Contender extends AutoCloseable {
    /** One decision for one permit; true if granted. */
    boolean decide(int key, boolean open);

    /** The same decision without blocking, where the contender has an async API (set-up only). */
    default CompletableFuture<Boolean> decideAsync(int key, boolean open) {
        return CompletableFuture.completedFuture(decide(key, open));
    }

    @Override
    void close();
}
