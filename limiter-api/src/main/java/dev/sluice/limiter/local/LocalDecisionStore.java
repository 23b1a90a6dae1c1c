package dev.sluice.limiter.local;

import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Outcome;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.spi.DecisionStore;
import dev.sluice.limiter.spi.StepRequest;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * State in a map; each step runs inside {@code compute}, so it is atomic per key. Expired entries are
 * swept incrementally: every {@value #SWEEP_EVERY} writes, entries whose time to live has passed are
 * removed. Reading an expired entry is harmless anyway: the step treats it as absent.
 *
 * <p>A sweep at time {@code S} decides for every key it removes that its state is stale, as a step at
 * {@code S} would have. If the clock then stepped back, a removed key would read as absent at a time
 * when its state still mattered (a closed window reopened, a fencing token lower than one already
 * issued), where a kept state would have carried its own latest time. So the store never decides at a
 * time earlier than its last sweep: time never runs backwards for a swept key either.
 */
final class LocalDecisionStore implements DecisionStore {
    static final int SWEEP_EVERY = 4096;

    private final InstantSource clock;
    private final ConcurrentHashMap<String, long[]> states = new ConcurrentHashMap<>();
    private final AtomicLong writes = new AtomicLong();
    /** The time of the last sweep; no decision runs earlier (see the class comment). */
    private final AtomicLong sweptAt = new AtomicLong(Long.MIN_VALUE);

    LocalDecisionStore(InstantSource clock) {
        this.clock = clock;
    }

    Verdict run(StepRequest request) {
        Verdict[] out = new Verdict[1];
        states.compute(request.key(), (key, state) -> {
            Outcome o = StepRunner.run(request.spec(), request.op(), request.permits(), request.leaseId(), state, now());
            out[0] = o.verdict();
            return switch (o.action()) {
                case KEEP -> state;
                case WRITE -> o.state();
                case REMOVE -> null;
            };
        });
        if ((writes.incrementAndGet() & (SWEEP_EVERY - 1)) == 0) {
            sweep();
        }
        return out[0];
    }

    /** Removes every entry whose state no longer matters. */
    void sweep() {
        // Raised before removing, so no step can run earlier than what it might find removed; never lowered.
        long now = sweptAt.accumulateAndGet(clock.millis(), Math::max);
        states.entrySet().removeIf(e -> Algorithms.expiresAt(e.getValue()) <= now);
    }

    private long now() {
        return Math.max(clock.millis(), sweptAt.get());
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
