package dev.sluice.limiter.runtime;

import dev.sluice.limiter.store.FutureFailures;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.DecisionStore;
import dev.sluice.limiter.store.Coalescer;
import dev.sluice.limiter.store.StepOutcomes;
import dev.sluice.limiter.store.StepRequest;
import java.util.List;
import java.util.concurrent.CompletionException;

import dev.sluice.limiter.local.ManualClock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A real in-memory store that a test can make hang, fail, or fail retryably; counts every call. */
final class ControllableStore implements DecisionStore {
    enum Mode {
        NORMAL, HANG, FAIL, FAIL_RETRYABLE, ANSWER_LATER,
        /** As {@link #ANSWER_LATER}, but the step runs and then the hand-over outlasts the tests' 30 ms deadlines. */
        HAND_OVER_SLOWLY
    }

    static final class Transient extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Transient() {
            super("connection lost (test)");
        }
    }

    final ManualClock clock = new ManualClock();
    final AtomicInteger calls = new AtomicInteger();
    /** Renewals asked for, by key. */
    final ConcurrentHashMap<String, AtomicInteger> renewals = new ConcurrentHashMap<>();
    final CopyOnWriteArrayList<CompletableFuture<Verdict>> hanging = new CopyOnWriteArrayList<>();
    /** In {@link Mode#ANSWER_LATER}: answers of steps that ran, to be delivered when the test says. */
    final CopyOnWriteArrayList<Runnable> heldAnswers = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap<String, long[]> states = new ConcurrentHashMap<>();
    volatile Mode mode = Mode.NORMAL;
    /** Failures still to produce before behaving normally, when &gt; 0 (overrides mode). */
    final AtomicInteger failuresLeft = new AtomicInteger();
    /** Steps still to run twice, as Hazelcast re-runs an invocation whose owner left after running it. */
    final AtomicInteger stepsToRunTwice = new AtomicInteger();
    /** Steps still to run whose answer is then lost (a retryable failure), when &gt; 0. */
    final AtomicInteger answersToLose = new AtomicInteger();

    /** Runs each request as {@link #decide} does, one after another. */
    @Override
    public CompletableFuture<StepOutcomes> run(List<StepRequest> requests) {
        StepOutcomes outcomes = new StepOutcomes(requests.size());
        CompletableFuture<Void> done = CompletableFuture.completedFuture(null);
        for (int i = 0; i < requests.size(); i++) {
            int at = i;
            StepRequest request = requests.get(i);
            done = done.thenCompose(ignored -> decide(request).handle((v, t) -> {
                if (t != null) {
                    if (requests.size() == 1) {
                        throw t instanceof CompletionException c ? c : new CompletionException(t);
                    }
                    outcomes.failure(at, (RuntimeException) FutureFailures.unwrap(t));
                } else {
                    outcomes.verdict(at, v);
                }
                return null;
            }));
        }
        return done.thenApply(ignored -> outcomes);
    }

    CompletableFuture<Verdict> decide(StepRequest request) {
        calls.incrementAndGet();
        if (request.op() == dev.sluice.limiter.algorithm.Op.RENEW) {
            renewals.computeIfAbsent(request.key(), k -> new AtomicInteger()).incrementAndGet();
        }
        if (failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return CompletableFuture.failedFuture(new Transient());
        }
        switch (mode) {
            case HANG: {
                CompletableFuture<Verdict> never = new CompletableFuture<>();
                hanging.add(never);
                return never;
            }
            case FAIL:
                return CompletableFuture.failedFuture(new IllegalMonitorStateException("store broken (test)"));
            case FAIL_RETRYABLE:
                return CompletableFuture.failedFuture(new Transient());
            default:
                break;
        }
        Verdict[] out = new Verdict[1];
        try {
            int runs = stepsToRunTwice.getAndUpdate(n -> Math.max(0, n - 1)) > 0 ? 2 : 1;
            for (int run = 0; run < runs; run++) {
                states.compute(request.key(), (k, state) -> {
                    Verdict v = request.apply(state, clock.millis());
                    out[0] = v;
                    return v.stateChanged(state) ? (v.ttlMillis() > 0 ? v.state() : null) : state;
                });
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (answersToLose.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            return CompletableFuture.failedFuture(new Transient()); // it ran, and the caller cannot know
        }
        if (mode == Mode.HAND_OVER_SLOWLY) {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (mode == Mode.ANSWER_LATER || mode == Mode.HAND_OVER_SLOWLY) {
            CompletableFuture<Verdict> later = new CompletableFuture<>();
            Verdict answer = out[0].withoutState();
            heldAnswers.add(() -> later.complete(answer));
            return later;
        }
        return CompletableFuture.completedFuture(out[0].withoutState());
    }

    @Override
    public boolean isRetryable(Throwable failure) {
        return failure instanceof Transient;
    }

    /** What {@link #members()} answers: -1, a store that cannot count its replicas, unless a test sets it. */
    volatile int members = -1;

    @Override
    public int members() {
        return members;
    }
}
