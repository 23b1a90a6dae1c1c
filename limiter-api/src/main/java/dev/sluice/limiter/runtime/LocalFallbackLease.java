package dev.sluice.limiter.runtime;

import dev.sluice.limiter.Lease;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * A lease the local fallback decided: the in-process decision, marked degraded and local. Closing or refunding it
 * goes to the in-process store that decided it (the store that was away never saw it).
 */
final class LocalFallbackLease implements Lease {
    private final Lease local;

    LocalFallbackLease(Lease local) {
        this.local = local;
    }

    @Override public boolean isAcquired() { return local.isAcquired(); }
    @Override public long remaining() { return local.remaining(); }
    @Override public long limit() { return local.limit(); }
    @Override public Optional<Duration> retryAfter() { return local.retryAfter(); }
    @Override public Duration resetAfter() { return local.resetAfter(); }
    @Override public boolean isDegraded() { return true; }
    @Override public boolean isLocalFallback() { return true; }
    @Override public OptionalLong fencingToken() { return local.fencingToken(); }
    @Override public void close() { local.close(); }
    @Override public CompletableFuture<Boolean> refund() { return local.refund(); }

    @Override
    public String toString() {
        return (isAcquired() ? "Lease[granted" : "Lease[refused") + ", degraded, local fallback, remaining="
                + remaining() + ", limit=" + limit() + retryAfter().map(d -> ", retryAfter=" + d).orElse("") + "]";
    }
}
