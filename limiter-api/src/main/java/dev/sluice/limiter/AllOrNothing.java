package dev.sluice.limiter;

import dev.sluice.limiter.runtime.OrderedAcquire;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Permits asked of several limiters in order, all or nothing: the rule behind {@link RateLimiters#chain}, for
 * callers that put rules of their own on top (an HTTP request's policies, say). Each {@link Step} is asked once
 * the one before it has answered; the first answer that {@linkplain Step#stops stops} the sequence (by default a
 * refusal or a failure) ends it, and what the steps before it granted is {@linkplain Lease#refund() refunded},
 * each grant once, before {@code finish} is called, so a stopped sequence spends nothing. A refund that fails
 * is logged and leaves its permits spent (stricter only).
 *
 * <p>Cancelling the returned future cancels the step in flight (which leaves that limiter's queue) and refunds
 * what was granted; a grant that arrives after it, or a completed sequence whose future was cancelled before
 * {@code finish} answered, is refunded too. Nothing blocks: the steps and {@code finish} run on the thread that
 * completes the previous answer, or the caller's.
 */
public final class AllOrNothing {
    private AllOrNothing() {}

    /** One limiter of a sequence, asked for its permits. */
    @FunctionalInterface
    public interface Step {
        /**
         * Asks this step's limiter. An exception it throws, or a failed future, is this step's failure.
         *
         * @return the limiter's answer, which may complete later
         */
        CompletableFuture<Lease> acquire();

        /**
         * Whether this step's answer ends the sequence. Called once, with the answer, before the next step is
         * asked; by default a refusal or a failure stops it.
         *
         * @param lease the answer; null if the step failed
         * @param failure the failure (not wrapped in a {@code CompletionException}); null if it answered
         */
        default boolean stops(Lease lease, Throwable failure) {
            return failure != null || !lease.isAcquired();
        }
    }

    /**
     * What one step answered.
     *
     * @param lease the answer; null if the step failed
     * @param failure the failure, unwrapped; null if the step answered
     * @param refunded true if its grant was given back because a later step stopped the sequence
     */
    public record Answer(Lease lease, Throwable failure, boolean refunded) {}

    /**
     * The answers of the steps that were asked, in order.
     *
     * @param answers one per step asked: every step's if the sequence ran to its end, else up to the one that
     *     stopped it, which is the last
     * @param stopped true if the last answer stopped the sequence
     */
    public record Result(List<Answer> answers, boolean stopped) {
        public Result {
            answers = List.copyOf(answers);
        }

        /** The last answer: the one that stopped the sequence, if it stopped. */
        public Answer last() {
            return answers.get(answers.size() - 1);
        }

        /** The leases of the answers, in order (null for a failed step). */
        public List<Lease> leases() {
            List<Lease> leases = new ArrayList<>(answers.size());
            for (Answer a : answers) {
                leases.add(a.lease());
            }
            return leases;
        }
    }

    /**
     * Asks {@code steps} in order, all or nothing, and completes with what {@code finish} makes of the result.
     *
     * @param name what the steps are together, for the log
     * @param finish called once with the result, after the refunds of a stopped sequence have completed; a
     *     failure it throws or completes with is the returned future's
     * @throws NullPointerException if an argument is null
     */
    public static <T> CompletableFuture<T> acquire(String name, List<? extends Step> steps,
            Function<? super Result, ? extends CompletionStage<T>> finish) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(finish, "finish");
        return OrderedAcquire.start(name, List.copyOf(steps), finish);
    }

    /** {@link #acquire(String, List, Function)} completing with the result itself. */
    public static CompletableFuture<Result> acquire(String name, List<? extends Step> steps) {
        return acquire(name, steps, CompletableFuture::completedFuture);
    }
}
