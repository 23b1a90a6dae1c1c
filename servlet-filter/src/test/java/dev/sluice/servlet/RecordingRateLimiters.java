package dev.sluice.servlet;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/** Wraps a {@link RateLimiters} and records every partition asked for, so tests see what reaches the store. */
final class RecordingRateLimiters implements RateLimiters {
    final List<String> partitions = new CopyOnWriteArrayList<>();
    private final RateLimiters delegate;

    RecordingRateLimiters(RateLimiters delegate) {
        this.delegate = delegate;
    }

    @Override public String keyPrefix() { return delegate.keyPrefix(); }

    @Override
    public RateLimiter limiter(String name, LimitSpec spec, LimiterOptions options) {
        return delegate.limiter(name, spec, options);
    }

    @Override
    public <P> PartitionedRateLimiter<P> partitioned(String policy, LimitSpec spec, LimiterOptions options,
            Function<? super P, String> partitionId) {
        PartitionedRateLimiter<P> inner = delegate.partitioned(policy, spec, options, partitionId);
        return new PartitionedRateLimiter<>() {
            @Override public String name() { return inner.name(); }
            @Override public LimitSpec spec() { return inner.spec(); }
            @Override public LimiterOptions options() { return inner.options(); }
            @Override public String keyOf(P partition) { return inner.keyOf(partition); }

            @Override
            public Lease tryAcquire(P partition, long permits) {
                partitions.add(String.valueOf(partition));
                return inner.tryAcquire(partition, permits);
            }

            @Override
            public CompletableFuture<Lease> acquireAsync(P partition, long permits) {
                partitions.add(String.valueOf(partition));
                return inner.acquireAsync(partition, permits);
            }

            @Override
            public Lease acquire(P partition, long permits, Duration maxWait) throws InterruptedException {
                partitions.add(String.valueOf(partition));
                return inner.acquire(partition, permits, maxWait);
            }

            @Override public LimiterStatistics statistics() { return inner.statistics(); }
            @Override public void close() { inner.close(); }
        };
    }

    @Override
    public void close() {
        delegate.close();
    }
}
