package dev.sluice.prefilter;

import dev.sluice.limiter.store.DecisionStore;
import dev.sluice.limiter.store.StepOutcomes;
import dev.sluice.limiter.store.StepRequest;
import java.util.List;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-process store that counts its steps: one count per hop. It runs the same step as every backend
 * ({@link StepRequest#apply}) inside {@code compute}, atomic per key, on the given clock. (The in-process
 * backend's own store is not public, so it cannot be wrapped.)
 */
final class CountingStore implements DecisionStore {
    private final InstantSource clock;
    private final ConcurrentHashMap<String, long[]> states = new ConcurrentHashMap<>();
    final AtomicLong calls = new AtomicLong();
    /** Runs before each step, e.g. to advance a manual clock by the request's travel time. */
    volatile Runnable beforeStep = () -> {};

    CountingStore(InstantSource clock) {
        this.clock = clock;
    }

    Verdict run(StepRequest request) {
        calls.incrementAndGet();
        beforeStep.run();
        Verdict[] out = new Verdict[1];
        states.compute(request.key(), (key, state) -> {
            Verdict v = request.apply(state, clock.millis());
            out[0] = v;
            if (!v.stateChanged(state)) {
                return state;
            }
            return v.state() == null || v.ttlMillis() <= 0 ? null : v.state();
        });
        return out[0].withoutState();
    }

    @Override
    public CompletableFuture<StepOutcomes> run(List<StepRequest> requests) {
        return CompletableFuture.completedFuture(StepOutcomes.ofEach(requests, this::run));
    }
}
