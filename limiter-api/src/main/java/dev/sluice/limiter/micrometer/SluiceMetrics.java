package dev.sluice.limiter.micrometer;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.StoreStatistics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

/**
 * Records Sluice decisions in Micrometer. Add it to a limiter's options with
 * {@link dev.sluice.limiter.LimiterOptions.Builder#listener(DecisionListener)}.
 *
 * <p>Meters, tagged by limiter name (for a partitioned limiter, its policy; never the key):
 * <ul>
 *   <li>{@code sluice.decisions} — a timer of decisions handed to callers, tagged
 *       {@code result=granted|refused|degraded|shadow_refused} (the last from callers that let a
 *       refusal through, such as the servlet filter's shadow mode); its count is the number of decisions;
 *   <li>{@code sluice.queue.permits} — a gauge of permits waiting in the local queue;
 *   <li>{@code sluice.capacity.refusals} — a counter of decisions the store refused because it was full
 *       (a new key under {@link dev.sluice.limiter.Capacity.Policy#REFUSE_NEW_KEYS}, or a new concurrency key),
 *       each also in {@code sluice.decisions} as {@code degraded};
 *   <li>{@code sluice.fallback.decisions} — a counter of decisions {@link dev.sluice.limiter.FailureMode#LOCAL} made
 *       on this replica's share while the store was away, tagged {@code result=granted|refused}, each also in
 *       {@code sluice.decisions} as {@code degraded}.
 * </ul>
 * {@link #bindStore} adds the store's own meters, tagged {@code store} (the factory's key prefix):
 * {@code sluice.store.keys}, {@code sluice.store.max.keys} and {@code sluice.store.overflow.cells} (gauges),
 * {@code sluice.store.evictions}, {@code sluice.store.capacity.refusals}, {@code sluice.store.overflow.decisions}
 * and {@code sluice.store.overflow.refusals} (counters); a value the store cannot know (-1) is not registered.
 */
public final class SluiceMetrics implements DecisionListener {
    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, Timer[]> timers = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicLong> queued = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> refusals = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter[]> fallbacks = new ConcurrentHashMap<>();

    @SuppressWarnings("exports") // micrometer-core is optional: whoever builds this binder has it
    public SluiceMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public void onDecision(String limiter, DecisionResult result, long durationNanos) {
        timers.computeIfAbsent(limiter, this::timersFor)[result.ordinal()].record(durationNanos, TimeUnit.NANOSECONDS);
        queueGauge(limiter);
    }

    @Override
    public void onQueueChanged(String limiter, long queuedPermits) {
        queueGauge(limiter).set(queuedPermits);
    }

    @Override
    public void onCapacityRefused(String limiter) {
        refusals.computeIfAbsent(limiter, name -> Counter.builder("sluice.capacity.refusals")
                .description("Decisions the store refused because it held as many keys as its bound allows")
                .tag("limiter", name)
                .register(registry)).increment();
    }

    @Override
    public void onFallbackDecision(String limiter, boolean granted) {
        fallbacks.computeIfAbsent(limiter, this::fallbackCountersFor)[granted ? 0 : 1].increment();
    }

    private Counter[] fallbackCountersFor(String limiter) {
        Counter[] byResult = new Counter[2];
        String[] results = {"granted", "refused"};
        for (int i = 0; i < results.length; i++) {
            byResult[i] = Counter.builder("sluice.fallback.decisions")
                    .description("Decisions made locally, on this replica's share, while the store was away")
                    .tag("limiter", limiter)
                    .tag("result", results[i])
                    .register(registry);
        }
        return byResult;
    }

    /**
     * Registers the meters of {@code limiters}' store (see the class comment), read from
     * {@link RateLimiters#storeStatistics()} whenever the registry asks. Those the store reports as unknown now
     * are left out.
     *
     * @return this binder
     */
    public SluiceMetrics bindStore(RateLimiters limiters) {
        Objects.requireNonNull(limiters, "limiters");
        StoreStatistics now = limiters.storeStatistics();
        String store = limiters.keyPrefix();
        gauge(limiters, store, now, "sluice.store.keys", StoreStatistics::keys,
                "Keys the store holds (Hazelcast: owned entries on the members in this JVM)");
        gauge(limiters, store, now, "sluice.store.max.keys", StoreStatistics::maxKeys, "The store's bound in keys");
        gauge(limiters, store, now, "sluice.store.overflow.cells", StoreStatistics::overflowCells,
                "Overflow cells holding state");
        counter(limiters, store, now, "sluice.store.evictions", StoreStatistics::evictions,
                "States dropped at the store's bound (only under the eviction policy, or by a JCache provider)");
        counter(limiters, store, now, "sluice.store.capacity.refusals", StoreStatistics::capacityRefusals,
                "Decisions of this process the store refused at its bound");
        counter(limiters, store, now, "sluice.store.overflow.decisions", StoreStatistics::overflowDecisions,
                "Decisions of this process made on a shared overflow cell, the store being full");
        counter(limiters, store, now, "sluice.store.overflow.refusals", StoreStatistics::overflowRefusals,
                "Overflow decisions of this process that refused permits");
        return this;
    }

    /** A gauge of one store statistic, unless the store cannot know it (-1). */
    private void gauge(RateLimiters limiters, String store, StoreStatistics now, String name,
            ToLongFunction<StoreStatistics> value, String description) {
        if (value.applyAsLong(now) >= 0) {
            Gauge.builder(name, limiters, l -> value.applyAsLong(l.storeStatistics()))
                    .description(description).tag("store", store).register(registry);
        }
    }

    /** A counter of one store statistic, unless the store cannot know it (-1). */
    private void counter(RateLimiters limiters, String store, StoreStatistics now, String name,
            ToLongFunction<StoreStatistics> value, String description) {
        if (value.applyAsLong(now) >= 0) {
            FunctionCounter.builder(name, limiters, l -> value.applyAsLong(l.storeStatistics()))
                    .description(description).tag("store", store).register(registry);
        }
    }

    private Timer[] timersFor(String limiter) {
        DecisionResult[] results = DecisionResult.values();
        Timer[] byResult = new Timer[results.length];
        for (DecisionResult r : results) {
            byResult[r.ordinal()] = Timer.builder("sluice.decisions")
                    .description("Rate limiter decisions handed to callers, from request to verdict")
                    .tag("limiter", limiter)
                    .tag("result", r.tag())
                    .register(registry);
        }
        return byResult;
    }

    private AtomicLong queueGauge(String limiter) {
        return queued.computeIfAbsent(limiter, name -> {
            AtomicLong value = new AtomicLong();
            Gauge.builder("sluice.queue.permits", value, AtomicLong::get)
                    .description("Permits waiting in this process's local queue")
                    .tag("limiter", name)
                    .baseUnit("permits")
                    .register(registry);
            return value;
        });
    }
}
