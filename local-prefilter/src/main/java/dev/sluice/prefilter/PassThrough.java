package dev.sluice.prefilter;

import dev.sluice.limiter.Lease;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The pre-filter of a concurrency limiter: every request goes to the store, since a release may free
 * permits at any moment (no refusal lasts) and a local allowance would hold permits that must return on
 * release. Leases are still counted, so {@code statistics()} reads the same in every mode.
 */
final class PassThrough implements Prefilter {
    private final PrefilterStats stats;

    PassThrough(PrefilterStats stats) {
        this.stats = stats;
    }

    @Override
    public PrefilterLease tryAcquire(String key, Remote remote, long permits) {
        return stats.record(PrefilterLeases.store(remote.tryAcquire(permits)));
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(String key, Remote remote, long permits) {
        return remote.acquireAsync(permits, l -> stats.record(PrefilterLeases.store(l)));
    }

    @Override
    public PrefilterLease acquire(String key, Remote remote, long permits, Duration maxWait)
            throws InterruptedException {
        return stats.record(PrefilterLeases.store(remote.acquire(permits, maxWait)));
    }

    @Override
    public void close() {}
}
