package dev.sluice.jcache;

import dev.sluice.limiter.spi.DecisionStore;
import dev.sluice.limiter.spi.StepRequest;
import dev.sluice.limiter.spi.Verdict;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.cache.Cache;
import javax.cache.processor.EntryProcessorException;

/**
 * Runs each step as one {@code Cache.invoke} of a {@link StepProcessor}.
 *
 * <p>JCache has no asynchronous API, so {@link #submit} runs {@code invoke} on the executor (the user's,
 * or a small bounded pool this store owns and shuts down in {@link #close}); never the common pool.
 * {@link #execute} runs {@code invoke} in the calling thread when {@code callerRuns} is set (in-process
 * providers: one thread hop less, and the step takes microseconds), otherwise on the executor, waiting at
 * most the timeout, so a slow remote provider cannot hold the caller past its deadline.
 *
 * <p>A rejected submission is retryable: the step never ran. Any other failure is not, since a remote
 * provider may have applied a step whose answer was lost.
 */
final class JCacheDecisionStore implements DecisionStore {
    private final Cache<String, long[]> cache;
    private final String clockName;
    private final Executor executor;
    private final ExecutorService owned;
    private final boolean callerRuns;
    private final Runnable onClose;

    JCacheDecisionStore(Cache<String, long[]> cache, String clockName, Executor executor, ExecutorService owned,
            boolean callerRuns, Runnable onClose) {
        this.cache = cache;
        this.clockName = clockName;
        this.executor = executor;
        this.owned = owned;
        this.callerRuns = callerRuns;
        this.onClose = onClose;
    }

    Verdict run(StepRequest request) {
        long[] words;
        try {
            words = cache.invoke(request.key(), new StepProcessor(request, clockName));
        } catch (EntryProcessorException e) {
            // The step's own exception (a usage error such as another algorithm's state) is what callers act on.
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
        return StepProcessor.verdictOf(words);
    }

    @Override
    public CompletableFuture<Verdict> submit(StepRequest request) {
        try {
            return CompletableFuture.supplyAsync(() -> run(request), executor);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public Verdict execute(StepRequest request, long timeoutNanos)
            throws TimeoutException, ExecutionException, InterruptedException {
        if (callerRuns) {
            return run(request);
        }
        CompletableFuture<Verdict> step;
        try {
            step = CompletableFuture.supplyAsync(() -> run(request), executor);
        } catch (RejectedExecutionException e) {
            throw new ExecutionException(e);
        }
        return step.get(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public boolean isRetryable(Throwable failure) {
        return failure instanceof RejectedExecutionException && (owned == null || !owned.isShutdown());
    }

    @Override
    public void close() {
        if (owned != null) {
            owned.shutdown();
        }
        onClose.run();
    }

    @Override
    public String toString() {
        return "JCache store (cache '" + cache.getName() + "', " + (callerRuns ? "caller runs" : "on executor") + ")";
    }
}
