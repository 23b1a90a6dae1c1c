package dev.sluice.prefilter;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * What a pre-filtered limiter does whatever its shape: it picks the {@link Prefilter} for the wrapped
 * limiter, checks each request, counts, and closes. {@link PrefilteredRateLimiter} ({@code P} is
 * {@code Void}, always null) and {@link PrefilteredPartitionedRateLimiter} only say which store key and
 * which store calls a partition has.
 *
 * @param <P> the partition type
 */
abstract class PrefilteredLimiter<P> {
    /** What is answered locally; tests reach the mode through it. */
    final Prefilter prefilter;
    private final String name;
    private final LimitSpec spec;
    private final LimiterOptions options;
    private final PrefilterStats stats;
    private final Supplier<LimiterStatistics> wrappedStatistics;
    private final Runnable closeWrapped;
    private volatile boolean closed;

    PrefilteredLimiter(String name, LimitSpec spec, LimiterOptions options, PrefilterOptions prefilterOptions,
            Supplier<LimiterStatistics> wrappedStatistics, Runnable closeWrapped) {
        this.name = name;
        this.spec = spec;
        this.options = options;
        this.wrappedStatistics = wrappedStatistics;
        this.closeWrapped = closeWrapped;
        this.stats = new PrefilterStats(name, options.listeners(), prefilterOptions.listeners());
        this.prefilter = prefilter(name, spec, options, prefilterOptions, stats);
    }

    private static Prefilter prefilter(String name, LimitSpec spec, LimiterOptions options,
            PrefilterOptions prefilterOptions, PrefilterStats stats) {
        boolean concurrency = spec instanceof LimitSpec.Concurrency;
        if (prefilterOptions.mode() == PrefilterMode.ALLOWANCE) {
            if (concurrency) {
                throw new IllegalArgumentException("mode ALLOWANCE does not apply to concurrency limiters ('" + name
                        + "'): permits return on release, so a local allowance would hold them; use REFUSAL_CACHE");
            }
            return new AllowancePool(name, spec, options, prefilterOptions, stats);
        }
        return concurrency ? new PassThrough(stats) : new RefusalCache(options, prefilterOptions, stats);
    }

    /** The store key of {@code partition}. */
    abstract String storeKey(P partition);

    /** How to reach the store for {@code partition}. */
    abstract Prefilter.Remote remote(P partition);

    public String name() {
        return name;
    }

    public LimitSpec spec() {
        return spec;
    }

    public LimiterOptions options() {
        return options;
    }

    /** What callers saw, local decisions included; the queue is the wrapped limiter's. */
    public LimiterStatistics statistics() {
        return stats.snapshot(wrappedStatistics.get().queuedPermits());
    }

    public void close() {
        closed = true;
        closeWrapped.run();
        prefilter.close();
    }

    final Lease decide(P partition, long permits) {
        checkOpen();
        String key = storeKey(partition);
        checkPermits(permits);
        return prefilter.tryAcquire(key, remote(partition), permits);
    }

    final CompletableFuture<Lease> decideAsync(P partition, long permits) {
        Prefilter.Remote remote = remote(partition);
        if (closed) {
            return remote.acquireAsync(permits).thenApply(PrefilterLeases::store); // refused by the closed limiter
        }
        String key = storeKey(partition);
        checkPermits(permits);
        return prefilter.acquireAsync(key, remote, permits);
    }

    final Lease decideWaiting(P partition, long permits, Duration maxWait) throws InterruptedException {
        if (maxWait == null || maxWait.isZero() || maxWait.isNegative() || options.queueLimit() == 0) {
            return decide(partition, permits); // without a queue, the wrapped limiter would make one decision too
        }
        checkOpen();
        String key = storeKey(partition);
        checkPermits(permits);
        return prefilter.acquire(key, remote(partition), permits, maxWait);
    }

    /** A reset of {@code partition}'s key in the store, then what this process knew of it forgotten. */
    final dev.sluice.limiter.KeyState reset(P partition, Supplier<dev.sluice.limiter.KeyState> reset) {
        dev.sluice.limiter.KeyState after = reset.get();
        prefilter.forget(storeKey(partition));
        return after;
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("limiter '" + name + "' is closed");
        }
    }

    private void checkPermits(long permits) {
        spec.checkPermits(permits, name);
    }
}
