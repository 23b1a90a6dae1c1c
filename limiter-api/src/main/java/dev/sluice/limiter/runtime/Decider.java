package dev.sluice.limiter.runtime;

import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.Coalescer;
import dev.sluice.limiter.store.StepRequest;

import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.IllegalParameterException;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.Ticker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * Obtains one verdict from the store within a deadline, retrying retryable failures with randomized,
 * bounded backoff. It knows nothing of failure modes: a verdict, or the last failure, is the result.
 * Usage errors (an {@link IllegalArgumentException} or {@link IllegalStateException} from the step) are
 * never retried.
 */
final class Decider {
    private static final long BASE_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    final Coalescer store;
    final ScheduledExecutorService scheduler;
    final Ticker ticker;
    private final Deadlines deadlines;

    Decider(Coalescer store, ScheduledExecutorService scheduler, Ticker ticker) {
        this.store = store;
        this.scheduler = scheduler;
        this.ticker = ticker;
        this.deadlines = new Deadlines(scheduler, ticker);
    }

    /**
     * A deadline on this runtime's ticker as the store reads deadlines ({@link Coalescer#submit}: on
     * {@link Ticker#system()}).
     */
    long storeDeadline(long deadline) {
        return ticker == Ticker.system() ? deadline : System.nanoTime() + (deadline - ticker.read());
    }

    /**
     * A usage error: a step's own rejection of its input ({@link StepRunner#isUsageError}) or a parameter the
     * API itself rejected ({@link IllegalParameterException}, wherever it was thrown).
     */
    static boolean isUsageError(Throwable t) {
        return StepRunner.isUsageError(t) || t instanceof IllegalParameterException;
    }

    /** A full store stays full for longer than a retry waits: its refusal goes to the failure mode at once. */
    static boolean isCapacityRefusal(Throwable t) {
        return t instanceof CapacityExceededException;
    }

    /** Whether the options ask to start over a key whose state {@code request}'s spec cannot read. */
    private static boolean replacesForeign(StepRequest request, LimiterOptions options, Throwable failure) {
        return options.replaceForeignState() && failure.getClass() == IllegalStateException.class
                && request.op() == Op.ACQUIRE;
    }

    private static StepRequest replaceForeign(StepRequest request) {
        return new StepRequest(request.key(), request.spec(), Op.REPLACE_FOREIGN, 0, 0, request.durability());
    }

    /** Blocks for a verdict; throws the last failure (a {@link TimeoutException} when time ran out). */
    Verdict decide(StepRequest request, LimiterOptions options) throws Throwable {
        return decide(request, options, null);
    }

    /**
     * {@link #decide(StepRequest, LimiterOptions)}, handing {@code late} the verdict of an acquisition the store ran
     * although time ran out first, so that what it granted can be given back ({@link Coalescer#execute}).
     */
    Verdict decide(StepRequest request, LimiterOptions options, Consumer<Verdict> late) throws Throwable {
        long deadline = ticker.read() + options.decisionTimeout().toNanos();
        boolean replaced = false;
        for (int attempt = 0; ; attempt++) {
            long left = deadline - ticker.read();
            if (left <= 0) {
                throw new TimeoutException("no verdict within " + options.decisionTimeout());
            }
            Throwable failure;
            try {
                return store.execute(request, left, request.op() == Op.ACQUIRE ? late : null);
            } catch (TimeoutException | InterruptedException e) {
                throw e;
            } catch (ExecutionException | RuntimeException e) {
                failure = Waits.unwrap(e);
            }
            if (!replaced && replacesForeign(request, options, failure)) {
                replaced = true; // once: a replica of the old spec may write its state again meanwhile
                store.execute(replaceForeign(request), Math.max(1, deadline - ticker.read()));
                attempt--;
                continue;
            }
            long pause = retryPause(failure, attempt, deadline, options);
            if (pause < 0) {
                throw failure;
            }
            TimeUnit.NANOSECONDS.sleep(pause);
        }
    }

    /**
     * Never blocks; the future completes with a verdict or the last failure, by the deadline at the latest.
     *
     * <p>An acquisition passes its deadline to the store, and when it ends without a verdict (the deadline
     * passed, or the returned future was cancelled), the store's future for the attempt in flight is
     * cancelled first, so a store that still holds the request unsent drops it: a caller who gave up is not
     * charged. Renewals and releases are sent however late, since a late one still keeps a held lease alive
     * or frees permits before the lease expires.
     */
    CompletableFuture<Verdict> decideAsync(StepRequest request, LimiterOptions options) {
        return decideAsync(request, options, null);
    }

    /**
     * {@link #decideAsync(StepRequest, LimiterOptions)}, handing {@code late} the verdict of an acquisition that
     * arrives once the returned future is done (its deadline passed, or it was cancelled while the answer was on
     * its way), so that what it granted can be given back.
     *
     * <p>With a {@code late} handler, a deadline that passes does not cancel the step in flight: a store drops an
     * unsent request at its deadline by itself ({@link Coalescer#submit}), and one already
     * sent then still answers, to {@code late}. A cancelled future still cancels the step, so a request the store
     * holds unsent is dropped; the answer of one already sent is then never seen, and gives nothing back.
     */
    CompletableFuture<Verdict> decideAsync(StepRequest request, LimiterOptions options,
            Consumer<Verdict> late) {
        Decision decision = new Decision(request, options, ticker.read() + options.decisionTimeout().toNanos(), late);
        Executor callbacks = store.store().callbackExecutor();
        Runnable expire = () -> {
            if (decision.late == null) {
                decision.abandonStep(); // before the caller hears back, so the request is out of any queue by then
            }
            decision.result.completeExceptionally(
                    new TimeoutException("no verdict within " + options.decisionTimeout()));
        };
        // The scheduler thread must stay free for deadlines: callers' callbacks run where the store says.
        Deadlines.Entry timeout = deadlines.add(decision.deadline,
                callbacks == null ? expire : () -> callbacks.execute(expire));
        decision.result.whenComplete((v, t) -> {
            timeout.cancel();
            if (decision.result.isCancelled()) {
                decision.abandonStep();
            }
        });
        attempt(decision, 0);
        return decision.result;
    }

    /** One asynchronous decision: its result and the store's future of the attempt in flight. */
    private static final class Decision {
        final StepRequest request;
        final LimiterOptions options;
        final CompletableFuture<Verdict> result = new CompletableFuture<>();
        final long deadline;
        /** Only an acquisition is dropped when its caller gives up; see {@link #decideAsync}. */
        final boolean abandonable;
        volatile CompletableFuture<Verdict> step;
        /** Whether foreign state was already replaced for this decision (at most once). */
        volatile boolean replaced;
        /** Where a verdict that arrives once {@link #result} is done goes, or {@code null}. */
        final Consumer<Verdict> late;

        Decision(StepRequest request, LimiterOptions options, long deadline, Consumer<Verdict> late) {
            this.request = request;
            this.options = options;
            this.deadline = deadline;
            this.abandonable = request.op() == Op.ACQUIRE;
            this.late = abandonable ? late : null;
        }

        void abandonStep() {
            CompletableFuture<Verdict> s = step;
            if (abandonable && s != null) {
                s.cancel(false);
            }
        }
    }

    private void attempt(Decision decision, int attempt) {
        CompletableFuture<Verdict> result = decision.result;
        LimiterOptions options = decision.options;
        if (result.isDone()) {
            return;
        }
        CompletableFuture<Verdict> step;
        try {
            step = store.submit(decision.request, decision.abandonable ? storeDeadline(decision.deadline) : Long.MAX_VALUE);
        } catch (RuntimeException e) {
            step = CompletableFuture.failedFuture(e);
        }
        decision.step = step;
        // The caller gave up while the request was being handed over. Past a deadline with a late handler the
        // step may already have run: it stays, so its answer reaches the handler; a cancelled caller drops it.
        if (result.isDone() && (decision.late == null || result.isCancelled())) {
            decision.abandonStep();
        }
        CompletableFuture<Verdict> sent = step;
        BiConsumer<Verdict, Throwable> onStep = (verdict, error) -> {
            if (sent.isCancelled()) {
                return; // abandoned here, once the result was settled (timed out or cancelled)
            }
            if (error == null) {
                if (!result.complete(verdict) && decision.late != null) {
                    decision.late.accept(verdict); // its caller gave up meanwhile: what it took goes back
                }
                return;
            }
            Throwable failure = Waits.unwrap(error);
            if (!decision.replaced && replacesForeign(decision.request, options, failure)) {
                decision.replaced = true;
                CompletableFuture<Verdict> replace;
                try {
                    replace = store.submit(replaceForeign(decision.request), storeDeadline(decision.deadline));
                } catch (RuntimeException e) {
                    replace = CompletableFuture.failedFuture(e);
                }
                replace.whenComplete((v, t) -> {
                    if (t != null) {
                        result.completeExceptionally(t);
                    } else {
                        attempt(decision, attempt);
                    }
                });
                return;
            }
            long pause = retryPause(failure, attempt, decision.deadline, options);
            if (pause < 0) {
                result.completeExceptionally(failure);
                return;
            }
            try {
                scheduler.schedule(() -> attempt(decision, attempt + 1), pause, TimeUnit.NANOSECONDS);
            } catch (RuntimeException rejected) { // the runtime is shutting down
                result.completeExceptionally(failure);
            }
        };
        Executor callbacks = store.store().callbackExecutor();
        if (callbacks == null) {
            step.whenComplete(onStep);
        } else {
            step.whenCompleteAsync(onStep, callbacks);
        }
    }

    /**
     * The retry policy of both paths: the pause before retrying {@code failure} as attempt {@code attempt + 1},
     * or -1 when it is not retried (a usage error, a capacity refusal, retries used up, a failure the store
     * calls permanent, no time left before the deadline). Every operation is retried alike; a refund too,
     * since it carries its id, so a first attempt that was applied makes the retry change nothing.
     */
    private long retryPause(Throwable failure, int attempt, long deadline, LimiterOptions options) {
        if (isUsageError(failure) || isCapacityRefusal(failure) || attempt >= options.maxRetries()
                || !store.isRetryable(failure)) {
            return -1;
        }
        return backoff(attempt, deadline);
    }

    /** A randomized pause before retry {@code attempt + 1}, or -1 if none fits before the deadline. */
    private long backoff(int attempt, long deadline) {
        long ceiling = Math.min(MAX_BACKOFF_NANOS, BASE_BACKOFF_NANOS << Math.min(attempt, 10));
        long pause = ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
        long left = deadline - ticker.read();
        // Leave the retry some time of its own; a retry with no time to run is no retry.
        return pause + BASE_BACKOFF_NANOS < left ? pause : -1;
    }
}
