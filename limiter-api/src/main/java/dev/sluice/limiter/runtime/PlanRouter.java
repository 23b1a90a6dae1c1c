package dev.sluice.limiter.runtime;

import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.Plans;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A planned limiter built from any {@link RateLimiters}' partitioned limiters, for factories that do not make their
 * own (a wrapper that changes options, say): one partitioned limiter per plan, all on the same policy and so on the
 * same keys, each call sent to the one of the partition's plan. A partition whose plan changes meets its state under
 * the other plan's spec: the live-change rules, as with the runtime's own planned limiter. Its statistics count the
 * leases it hands out; queued permits are the plans' limiters' together.
 */
public final class PlanRouter<P> implements PartitionedRateLimiter<P> {
    private final String policy;
    private final Plans plans;
    private final LimiterOptions options;
    private final Function<? super P, String> planOf;
    private final Map<String, PartitionedRateLimiter<P>> byPlan;
    private final PartitionedRateLimiter<P> unknownPlan;
    private final LimiterStatistics.Recorder recorder = new LimiterStatistics.Recorder();

    private PlanRouter(String policy, Plans plans, LimiterOptions options, Function<? super P, String> planOf,
            Map<String, PartitionedRateLimiter<P>> byPlan) {
        this.policy = policy;
        this.plans = plans;
        this.options = options;
        this.planOf = planOf;
        this.byPlan = byPlan;
        this.unknownPlan = plans.defaultPlan().map(byPlan::get).orElse(null);
    }

    /** For {@link RateLimiters#planned}: a partitioned limiter of {@code limiters} per plan. */
    public static <P> PartitionedRateLimiter<P> of(RateLimiters limiters, String policy, Plans plans,
            LimiterOptions options, Function<? super P, String> partitionId, Function<? super P, String> planOf) {
        Objects.requireNonNull(plans, "plans");
        Objects.requireNonNull(planOf, "planOf");
        Map<String, PartitionedRateLimiter<P>> byPlan = new LinkedHashMap<>();
        try {
            plans.specs().forEach((plan, spec) -> {
                try {
                    byPlan.put(plan, limiters.partitioned(policy, spec, options, partitionId));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("plan '" + plan + "' of policy '" + policy + "': "
                            + e.getMessage(), e);
                }
            });
        } catch (RuntimeException e) {
            byPlan.values().forEach(PartitionedRateLimiter::close);
            throw e;
        }
        return new PlanRouter<>(policy, plans, options, planOf, byPlan);
    }

    /** The limiter of a partition's plan; null when its plan is unknown and refused. */
    private PartitionedRateLimiter<P> limiterOf(P partition) {
        Objects.requireNonNull(partition, "partition");
        String plan = planOf.apply(partition);
        PartitionedRateLimiter<P> limiter = plan == null ? null : byPlan.get(plan);
        return limiter != null ? limiter : unknownPlan;
    }

    private Lease record(Lease lease) {
        recorder.record(lease.isDegraded() ? DecisionResult.DEGRADED
                : lease.isAcquired() ? DecisionResult.GRANTED : DecisionResult.REFUSED,
                lease.isDegraded() ? -1 : lease.remaining());
        return lease;
    }

    /** The answer to a partition whose plan is unknown and refused: no plan's limit, no retry-after. */
    private Lease unknownPlan(long permits) {
        spec().checkPermits(permits, policy);
        return record(Lease.refused(0, 0, Optional.empty(), Duration.ZERO));
    }

    @Override public String name() { return policy; }
    @Override public LimitSpec spec() { return plans.primarySpec(); }
    @Override public LimiterOptions options() { return options; }

    @Override
    public String keyOf(P partition) {
        return byPlan.values().iterator().next().keyOf(partition);
    }

    @Override
    public Optional<LimitSpec> specOf(P partition) {
        PartitionedRateLimiter<P> limiter = limiterOf(partition);
        return limiter == null ? Optional.empty() : Optional.of(limiter.spec());
    }

    @Override
    public Optional<String> planOf(P partition) {
        Objects.requireNonNull(partition, "partition");
        return plans.resolve(planOf.apply(partition));
    }

    @Override
    public Lease tryAcquire(P partition, long permits) {
        PartitionedRateLimiter<P> limiter = limiterOf(partition);
        return limiter == null ? unknownPlan(permits) : record(limiter.tryAcquire(partition, permits));
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(P partition, long permits) {
        PartitionedRateLimiter<P> limiter = limiterOf(partition);
        return limiter == null ? CompletableFuture.completedFuture(unknownPlan(permits))
                : limiter.acquireAsync(partition, permits).thenApply(this::record);
    }

    @Override
    public Lease acquire(P partition, long permits, Duration maxWait) throws InterruptedException {
        PartitionedRateLimiter<P> limiter = limiterOf(partition);
        return limiter == null ? unknownPlan(permits) : record(limiter.acquire(partition, permits, maxWait));
    }

    @Override
    public KeyState inspect(P partition) {
        return known(partition).inspect(partition);
    }

    @Override
    public KeyState reset(P partition) {
        return known(partition).reset(partition);
    }

    @Override
    public KeyState reset(P partition, long remaining) {
        return known(partition).reset(partition, remaining);
    }

    private PartitionedRateLimiter<P> known(P partition) {
        PartitionedRateLimiter<P> limiter = limiterOf(partition);
        if (limiter == null) {
            throw new IllegalArgumentException("partition of key '" + keyOf(partition) + "' has plan '"
                    + planOf.apply(partition) + "', which limiter '" + policy + "' does not know and refuses; plans: "
                    + byPlan.keySet());
        }
        return limiter;
    }

    @Override
    public LimiterStatistics statistics() {
        long queued = 0;
        for (PartitionedRateLimiter<P> limiter : byPlan.values()) {
            queued += limiter.statistics().queuedPermits();
        }
        return recorder.snapshot(queued);
    }

    @Override
    public void close() {
        byPlan.values().forEach(PartitionedRateLimiter::close);
    }

    @Override
    public String toString() {
        return "PartitionedRateLimiter[" + policy + ", " + plans + "]";
    }
}
