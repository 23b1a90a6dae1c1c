package dev.sluice.limiter.runtime;

import dev.sluice.limiter.store.Coalescer;
import dev.sluice.limiter.store.DecisionStore;

import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.Plans;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.StoreStatistics;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The shared runtime over one store, reached through its {@link Coalescer}: one scheduler for deadlines, retries,
 * queues and renewals (its own thread, or the caller's scheduler from {@link RuntimeSettings}). Built by
 * {@link dev.sluice.limiter.store.RateLimiterRuntime}.
 */
public final class DefaultRateLimiters implements RateLimiters {
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    final Decider decider;
    /** {@link dev.sluice.limiter.FailureMode#LOCAL} for every limiter over this store. */
    final LocalFallback fallback;
    private final DecisionStore store;
    private final Coalescer coalescer;
    private final String keyPrefix;
    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    private final Set<AutoCloseable> created = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** Limiters whose decisions go through {@code coalescer}; arguments already checked. */
    public DefaultRateLimiters(Coalescer coalescer, String keyPrefix, RuntimeSettings settings) {
        this.coalescer = coalescer;
        this.store = coalescer.store();
        this.keyPrefix = keyPrefix;
        if (settings.scheduler() != null) {
            this.scheduler = settings.scheduler();
            this.ownsScheduler = false;
        } else {
            int id = INSTANCES.incrementAndGet();
            ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "sluice-runtime-" + id);
                t.setDaemon(true);
                return t;
            });
            own.setRemoveOnCancelPolicy(true);
            own.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            this.scheduler = own;
            this.ownsScheduler = true;
        }
        this.decider = new Decider(coalescer, scheduler, settings.ticker());
        this.fallback = new LocalFallback(store, settings.ticker(), scheduler, keyPrefix);
    }

    @Override
    public String keyPrefix() {
        return keyPrefix;
    }

    @Override
    public RateLimiter limiter(String name, LimitSpec spec, LimiterOptions options) {
        Keys.checkName("name", name);
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(options, "options");
        checkOpen();
        checkRenewal(spec, options);
        store.checkSpec(spec);
        fallback.check(name, spec, options);
        DefaultRateLimiter limiter = new DefaultRateLimiter(this, name, Keys.limiterKey(keyPrefix, name), spec, options,
                new Stats(name, options.listeners(), decider.ticker), null);
        created.add(limiter);
        return limiter;
    }

    @Override
    public <P> PartitionedRateLimiter<P> partitioned(String policy, LimitSpec spec, LimiterOptions options,
            Function<? super P, String> partitionId) {
        Keys.checkName("policy", policy);
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(partitionId, "partitionId");
        checkOpen();
        checkRenewal(spec, options);
        store.checkSpec(spec);
        fallback.check(policy, spec, options);
        PartitionedLimiter<P> limiter = new PartitionedLimiter<>(this, policy, Keys.partitionKeyBase(keyPrefix, policy), spec,
                options, partitionId);
        created.add(limiter);
        return limiter;
    }

    @Override
    public <P> PartitionedRateLimiter<P> planned(String policy, Plans plans, LimiterOptions options,
            Function<? super P, String> partitionId, Function<? super P, String> planOf) {
        Keys.checkName("policy", policy);
        Objects.requireNonNull(plans, "plans");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(partitionId, "partitionId");
        Objects.requireNonNull(planOf, "planOf");
        checkOpen();
        plans.specs().forEach((plan, spec) -> {
            try {
                checkRenewal(spec, options);
                store.checkSpec(spec);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("plan '" + plan + "' of policy '" + policy + "': " + e.getMessage(), e);
            }
        });
        PartitionedLimiter<P> limiter = new PartitionedLimiter<>(this, policy, Keys.partitionKeyBase(keyPrefix, policy),
                plans.primarySpec(), options, partitionId, plans, planOf);
        created.add(limiter);
        return limiter;
    }

    DefaultRateLimiter newPartition(String policy, String key, LimitSpec spec, LimiterOptions options, Stats stats,
            Runnable onIdle, BooleanSupplier ownerClosed) {
        return new DefaultRateLimiter(this, policy, key, spec, options, stats, onIdle, ownerClosed);
    }

    private static void checkRenewal(LimitSpec spec, LimiterOptions options) {
        if (spec instanceof LimitSpec.Concurrency c && options.renewInterval() != null
                && options.renewInterval().toMillis() >= c.leaseDurationMillis()) {
            throw new IllegalArgumentException("renewInterval must be shorter than the lease duration "
                    + c.leaseDuration() + ", was " + options.renewInterval());
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("these rate limiters are closed");
        }
    }

    @Override
    public StoreStatistics storeStatistics() {
        StoreStatistics s = store.statistics();
        return new StoreStatistics(s.keys(), s.maxKeys(), s.evictions(),
                s.capacityRefusals() >= 0 ? s.capacityRefusals() : coalescer.capacityRefusals(),
                s.overflowDecisions() >= 0 ? s.overflowDecisions() : coalescer.overflowDecisions(),
                s.overflowRefusals() >= 0 ? s.overflowRefusals() : coalescer.overflowRefusals(), s.overflowCells());
    }

    @Override
    public long[] sharedValue(String name, long[] words) {
        checkOpen();
        return store.putIfAbsent(Keys.limiterKey(keyPrefix, name), words.clone());
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (AutoCloseable c : created) {
            try {
                c.close();
            } catch (Exception ignored) {
                // Closing one limiter must not keep the others open.
            }
        }
        created.clear();
        if (ownsScheduler) {
            scheduler.shutdownNow();
            try {
                scheduler.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        store.close();
    }

    @Override
    public String toString() {
        return "RateLimiters[" + keyPrefix + " on " + coalescer + "]";
    }
}
