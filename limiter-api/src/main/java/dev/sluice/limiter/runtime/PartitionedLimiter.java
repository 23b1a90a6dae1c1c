package dev.sluice.limiter.runtime;

import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.PartitionedRateLimiter;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A limiter per partition. Only partitions with something in flight locally (queued waiters, held
 * concurrency leases) keep a limiter object; all others get a fresh, throw-away one per call, so a flood
 * of distinct partitions costs no memory here. The number of busy partitions is bounded by
 * {@link #MAX_BUSY_PARTITIONS}: past it, requests still get their one decision but do not queue, and a
 * concurrency lease granted there is held by a partition nobody tracks. Closing stops every lease's renewal
 * all the same: a tracked partition's at once, an untracked one's at its next renewal, which finds this
 * limiter closed; the leases then expire in the store.
 */
final class PartitionedLimiter<P> implements PartitionedRateLimiter<P> {
    static final int MAX_BUSY_PARTITIONS = 10_000;

    private final DefaultRateLimiters owner;
    private final String policy;
    private final String keyBase;
    private final LimitSpec spec;
    private final LimiterOptions options;
    private final LimiterOptions noQueue;
    private final Function<? super P, String> partitionId;
    private final Stats stats;
    private final ConcurrentHashMap<String, DefaultRateLimiter> busy = new ConcurrentHashMap<>();
    private volatile boolean closed;

    PartitionedLimiter(DefaultRateLimiters owner, String policy, String keyBase, LimitSpec spec,
            LimiterOptions options, Function<? super P, String> partitionId) {
        this.owner = owner;
        this.policy = policy;
        this.keyBase = keyBase;
        this.spec = spec;
        this.options = options;
        this.noQueue = options.toBuilder().queueLimit(0).build();
        this.partitionId = partitionId;
        this.stats = new Stats(policy, options.listeners(), owner.decider.ticker);
    }

    @Override public String name() { return policy; }
    @Override public LimitSpec spec() { return spec; }
    @Override public LimiterOptions options() { return options; }
    @Override public LimiterStatistics statistics() { return stats.snapshot(); }

    @Override
    public String keyOf(P partition) {
        Objects.requireNonNull(partition, "partition");
        String id = Objects.requireNonNull(partitionId.apply(partition), "partition id");
        return keyBase + Keys.partitionSegment(id);
    }

    /** The limiter for a partition: the busy one if there is one, else a fresh one that is kept only if it gets busy. */
    private DefaultRateLimiter partition(P partition) {
        if (closed) {
            throw new IllegalStateException("limiter '" + policy + "' is closed");
        }
        String key = keyOf(partition);
        DefaultRateLimiter existing = busy.get(key);
        if (existing != null) {
            return existing;
        }
        return fresh(key);
    }

    private DefaultRateLimiter fresh(String key) {
        boolean room = busy.size() < MAX_BUSY_PARTITIONS;
        DefaultRateLimiter[] self = new DefaultRateLimiter[1];
        self[0] = owner.newPartition(policy, key, spec, room ? options : noQueue, stats, () -> releaseIfIdle(self[0]),
                () -> closed);
        return self[0];
    }

    private void releaseIfIdle(DefaultRateLimiter limiter) {
        if (limiter != null && !limiter.isBusy()) {
            busy.remove(limiter.key(), limiter);
        }
    }

    /** Keeps a limiter reachable while it has waiters or leases; returns the one to use. */
    private DefaultRateLimiter retain(DefaultRateLimiter limiter) {
        if (busy.size() >= MAX_BUSY_PARTITIONS) {
            return limiter; // created without a queue: it decides once and is forgotten
        }
        DefaultRateLimiter prior = busy.putIfAbsent(limiter.key(), limiter);
        return prior != null ? prior : limiter;
    }

    @Override
    public Lease tryAcquire(P partition, long permits) {
        DefaultRateLimiter limiter = partition(partition);
        if (!(spec instanceof LimitSpec.Concurrency)) {
            return limiter.tryAcquire(permits);
        }
        DefaultRateLimiter held = retain(limiter);
        try {
            return held.tryAcquire(permits);
        } finally {
            releaseIfIdle(held);
        }
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(P partition, long permits) {
        DefaultRateLimiter held = retain(partition(partition));
        CompletableFuture<Lease> future = held.acquireAsync(permits);
        future.whenComplete((lease, failure) -> releaseIfIdle(held));
        return future;
    }

    @Override
    public Lease acquire(P partition, long permits, Duration maxWait) throws InterruptedException {
        DefaultRateLimiter held = retain(partition(partition));
        try {
            return held.acquire(permits, maxWait);
        } finally {
            releaseIfIdle(held);
        }
    }

    @Override
    public KeyState inspect(P partition) {
        return partition(partition).inspect();
    }

    @Override
    public KeyState reset(P partition) {
        return partition(partition).reset();
    }

    @Override
    public KeyState reset(P partition, long remaining) {
        return partition(partition).reset(remaining);
    }

    /** Partitions currently holding local waiters or leases (for tests and diagnostics). */
    int busyPartitions() {
        return busy.size();
    }

    @Override
    public void close() {
        closed = true;
        busy.values().forEach(DefaultRateLimiter::close);
        busy.clear();
    }
}
