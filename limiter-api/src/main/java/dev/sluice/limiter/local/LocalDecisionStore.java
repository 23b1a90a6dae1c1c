package dev.sluice.limiter.local;

import dev.sluice.limiter.spi.Algorithms;
import dev.sluice.limiter.spi.DecisionStore;
import dev.sluice.limiter.spi.StepRequest;
import dev.sluice.limiter.spi.Verdict;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * State in a map; each step runs inside {@code compute}, so it is atomic per key. Expired entries are
 * swept incrementally: every {@value #SWEEP_EVERY} writes, entries whose time to live has passed are
 * removed. Reading an expired entry is harmless anyway: the step treats it as absent.
 */
final class LocalDecisionStore implements DecisionStore {
    static final int SWEEP_EVERY = 4096;

    private final InstantSource clock;
    private final ConcurrentHashMap<String, long[]> states = new ConcurrentHashMap<>();
    private final AtomicLong writes = new AtomicLong();

    LocalDecisionStore(InstantSource clock) {
        this.clock = clock;
    }

    Verdict run(StepRequest request) {
        Verdict[] out = new Verdict[1];
        states.compute(request.key(), (key, state) -> {
            Verdict v = request.apply(state, clock.millis());
            out[0] = v;
            if (!v.stateChanged(state)) {
                return state;
            }
            return v.state() == null || v.ttlMillis() <= 0 ? null : v.state();
        });
        if ((writes.incrementAndGet() & (SWEEP_EVERY - 1)) == 0) {
            sweep();
        }
        return out[0].withoutState();
    }

    /** Removes every entry whose state no longer matters. */
    void sweep() {
        long now = clock.millis();
        states.entrySet().removeIf(e -> Algorithms.expiresAt(e.getValue()) <= now);
    }

    /** The stored state of a key, or null (for tests). */
    long[] peek(String key) {
        return states.get(key);
    }

    /** Entries currently held, expired or not (for tests). */
    int size() {
        return states.size();
    }

    @Override
    public CompletableFuture<Verdict> submit(StepRequest request) {
        try {
            return CompletableFuture.completedFuture(run(request));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public Verdict execute(StepRequest request, long timeoutNanos) {
        return run(request);
    }

    @Override
    public String toString() {
        return "in-process store (" + states.size() + " keys)";
    }
}
