package dev.sluice.limiter.micrometer;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Records Sluice decisions in Micrometer. Add it to a limiter's options with
 * {@link dev.sluice.limiter.LimiterOptions.Builder#listener(DecisionListener)}.
 *
 * <p>Meters, tagged by limiter name (for a partitioned limiter, its policy; never the key):
 * <ul>
 *   <li>{@code sluice.decisions} — a timer of decisions handed to callers, tagged
 *       {@code result=granted|refused|degraded|shadow_refused} (the last from callers that let a
 *       refusal through, such as the servlet filter's shadow mode); its count is the number of decisions;
 *   <li>{@code sluice.queue.permits} — a gauge of permits waiting in the local queue.
 * </ul>
 */
public final class SluiceMetrics implements DecisionListener {
    private final MeterRegistry registry;
    private final ConcurrentHashMap<String, Timer[]> timers = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AtomicLong> queued = new ConcurrentHashMap<>();

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
