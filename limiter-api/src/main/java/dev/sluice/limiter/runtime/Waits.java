package dev.sluice.limiter.runtime;

import dev.sluice.limiter.store.FutureFailures;
import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.Lease;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * What a limiter and a chain of them share: a blocking {@code acquire} on top of {@code acquireAsync}, and the
 * failure inside a future's wrapper.
 */
final class Waits {
    private Waits() {}

    /** {@link FutureFailures#unwrap}. */
    static Throwable unwrap(Throwable failure) {
        return FutureFailures.unwrap(failure);
    }

    /**
     * Waits for {@code future} at most {@code waitNanos}. When time runs out it is cancelled (which gives back
     * what it held) and {@code timedOut} answers, unless it completed meanwhile; when interrupted it is
     * cancelled too. A failure is rethrown as it is, or, if checked, as {@link DecisionUnavailableException}
     * for {@code limiter}.
     */
    static Lease await(CompletableFuture<Lease> future, long waitNanos, Supplier<Lease> timedOut,
            String limiter) throws InterruptedException {
        try {
            return future.get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (future.cancel(false)) {
                return timedOut.get();
            }
            return future.join();
        } catch (InterruptedException e) {
            future.cancel(false);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = unwrap(e);
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new DecisionUnavailableException(limiter, "the store failed: " + cause, cause);
        }
    }
}
