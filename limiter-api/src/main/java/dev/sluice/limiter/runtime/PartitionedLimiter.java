package dev.sluice.limiter.runtime;

import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.Plans;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
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
 *
 * <p>A planned one chooses each partition's spec from its plan at each call and keeps one key per partition, so a
 * plan change is a live change of spec on that key. A partition's busy limiter keeps the spec it was created with
 * until it is idle again: its queue and its leases were counted under that spec. A partition whose plan is unknown
 * and refused never gets a limiter: its calls answer a refusal without asking the store.
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
    /** For a planned limiter: each plan's spec, the spec of an unknown plan (null: refused), the partition's plan. */
    private final Map<String, LimitSpec> planSpecs;
    private final LimitSpec unknownPlanSpec;
    private final Function<? super P, String> planOf;
    private final Plans plans;
    private final Stats stats;
    private final ConcurrentHashMap<String, DefaultRateLimiter> busy = new ConcurrentHashMap<>();
    private volatile boolean closed;

    PartitionedLimiter(DefaultRateLimiters owner, String policy, String keyBase, LimitSpec spec,
            LimiterOptions options, Function<? super P, String> partitionId) {
        this(owner, policy, keyBase, spec, options, partitionId, null, null);
    }

    /** A planned limiter ({@code plans} and {@code planOf} not null) or a plain one (both null). */
    PartitionedLimiter(DefaultRateLimiters owner, String policy, String keyBase, LimitSpec spec,
            LimiterOptions options, Function<? super P, String> partitionId, Plans plans,
            Function<? super P, String> planOf) {
        this.plans = plans;
        this.planSpecs = plans == null ? null : plans.specs();
        this.unknownPlanSpec = plans == null ? null : plans.defaultPlan().map(plans::spec).orElse(null);
        this.planOf = planOf;
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

    /**
     * The spec of a partition: this limiter's, or its plan's; null when its plan is unknown and refused. Asks
     * {@code planOf} once.
     */
    private LimitSpec specFor(P partition) {
        if (planSpecs == null) {
            return spec;
        }
        String plan = planOf.apply(partition);
        LimitSpec chosen = plan == null ? null : planSpecs.get(plan);
        return chosen != null ? chosen : unknownPlanSpec;
    }

    @Override
    public Optional<LimitSpec> specOf(P partition) {
        Objects.requireNonNull(partition, "partition");
        return Optional.ofNullable(specFor(partition));
    }

    @Override
    public Optional<String> planOf(P partition) {
        Objects.requireNonNull(partition, "partition");
        return plans == null ? Optional.empty() : plans.resolve(planOf.apply(partition));
    }

    /**
     * The limiter for a partition: the busy one if there is one, else a fresh one that is kept only if it gets busy;
     * null when the partition's plan is unknown and refused.
     */
    private DefaultRateLimiter partition(P partition) {
        if (closed) {
            throw new IllegalStateException("limiter '" + policy + "' is closed");
        }
        String key = keyOf(partition);
        LimitSpec chosen = specFor(partition);
        if (chosen == null) {
            return null;
        }
        DefaultRateLimiter existing = busy.get(key);
        if (existing != null) {
            return existing;
        }
        return fresh(key, chosen);
    }

    private DefaultRateLimiter fresh(String key, LimitSpec chosen) {
        boolean room = busy.size() < MAX_BUSY_PARTITIONS;
        DefaultRateLimiter[] self = new DefaultRateLimiter[1];
        self[0] = owner.newPartition(policy, key, chosen, room ? options : noQueue, stats, () -> releaseIfIdle(self[0]),
                () -> closed);
        return self[0];
    }

    /** The answer to a partition whose plan is unknown and refused: no plan's limit, no retry-after. */
    private Lease unknownPlan(long permits) {
        spec.checkPermits(permits, policy);
        Lease refused = Lease.refused(0, 0, Optional.empty(), Duration.ZERO);
        stats.record(DecisionResult.REFUSED, 0, owner.decider.ticker.read());
        return refused;
    }

    private IllegalArgumentException unknownPlanState(P partition) {
        return new IllegalArgumentException("partition of key '" + keyOf(partition) + "' has plan '"
                + planOf.apply(partition) + "', which limiter '" + policy + "' does not know and refuses; plans: "
                + planSpecs.keySet());
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
        if (limiter == null) {
            return unknownPlan(permits);
        }
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
        DefaultRateLimiter limiter = partition(partition);
        if (limiter == null) {
            return CompletableFuture.completedFuture(unknownPlan(permits));
        }
        if (!limiter.mayQueueOrHold()) {
            return limiter.acquireAsync(permits); // one decision, never busy: nobody needs to find it again
        }
        DefaultRateLimiter held = retain(limiter);
        CompletableFuture<Lease> future = held.acquireAsync(permits);
        future.whenComplete((lease, failure) -> releaseIfIdle(held));
        return future;
    }

    @Override
    public Lease acquire(P partition, long permits, Duration maxWait) throws InterruptedException {
        DefaultRateLimiter limiter = partition(partition);
        if (limiter == null) {
            return unknownPlan(permits);
        }
        DefaultRateLimiter held = retain(limiter);
        try {
            return held.acquire(permits, maxWait);
        } finally {
            releaseIfIdle(held);
        }
    }

    @Override
    public KeyState inspect(P partition) {
        return known(partition).inspect();
    }

    @Override
    public KeyState reset(P partition) {
        return known(partition).reset();
    }

    @Override
    public KeyState reset(P partition, long remaining) {
        return known(partition).reset(remaining);
    }

    /** The limiter of a partition an operator asks about; its plan must be known (or have a default). */
    private DefaultRateLimiter known(P partition) {
        DefaultRateLimiter limiter = partition(partition);
        if (limiter == null) {
            throw unknownPlanState(partition);
        }
        return limiter;
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
