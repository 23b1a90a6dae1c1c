package dev.sluice.limiter.runtime;

import dev.sluice.limiter.AllOrNothing;
import dev.sluice.limiter.AllOrNothing.Answer;
import dev.sluice.limiter.AllOrNothing.Result;
import dev.sluice.limiter.AllOrNothing.Step;
import dev.sluice.limiter.Lease;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * One run of {@link AllOrNothing#acquire}: the one place where a stop refunds what the earlier steps granted.
 *
 * <p>Each grant is given back exactly once, whoever gets there first. {@link #granted} holds the grants that
 * nobody has taken yet; three parties take them, each under the lock: a stopping answer (refunds them, then
 * finishes), the end of the sequence (hands them to {@code finish}; if {@link #out} cannot be completed then,
 * because it was cancelled meanwhile, they are refunded), and a cancellation of {@link #out} (refunds them and
 * cancels the step in flight). An answer checks whether {@link #out} is done under the same lock as it adds its
 * grant, so a grant that arrives after a cancellation is refunded by the answer itself, never left behind.
 */
public final class OrderedAcquire<T> {
    private static final System.Logger LOG = System.getLogger(OrderedAcquire.class.getName());

    private final String name;
    private final List<? extends Step> steps;
    private final Function<? super Result, ? extends CompletionStage<T>> finish;
    private final CompletableFuture<T> out = new CompletableFuture<>();
    /** Guarded by this: every answer so far, and the indexes and leases of the grants nobody has taken. */
    private final List<Answer> answers = new ArrayList<>();
    private final List<Integer> grantedAt = new ArrayList<>();
    private final List<Lease> granted = new ArrayList<>();
    private CompletableFuture<Lease> inFlight;

    private OrderedAcquire(String name, List<? extends Step> steps,
            Function<? super Result, ? extends CompletionStage<T>> finish) {
        this.name = name;
        this.steps = steps;
        this.finish = finish;
    }

    /** For {@link dev.sluice.limiter.AllOrNothing#acquire}: arguments already checked. */
    public static <T> CompletableFuture<T> start(String name, List<? extends Step> steps,
            Function<? super Result, ? extends CompletionStage<T>> finish) {
        OrderedAcquire<T> run = new OrderedAcquire<>(name, steps, finish);
        run.out.whenComplete((value, failure) -> {
            if (run.out.isCancelled()) {
                run.abandon();
            }
        });
        run.ask(0);
        return run.out;
    }

    private void ask(int index) {
        if (index == steps.size()) {
            List<Lease> handedOn;
            Result result;
            synchronized (this) {
                handedOn = takeGranted();
                result = new Result(answers, false);
            }
            finish(result, handedOn);
            return;
        }
        CompletableFuture<Lease> next;
        try {
            next = Objects.requireNonNull(steps.get(index).acquire(), "the future of a step");
        } catch (RuntimeException | Error e) { // here in a callback, an unseen throwable would leave out pending
            answered(index, null, e);
            return;
        }
        synchronized (this) {
            inFlight = next;
        }
        if (out.isDone()) {
            next.cancel(false);
        }
        next.whenComplete((lease, failure) -> answered(index, lease, failure == null ? null : Waits.unwrap(failure)));
    }

    private void answered(int index, Lease lease, Throwable failure) {
        boolean stops;
        try {
            stops = out.isDone() || steps.get(index).stops(lease, failure);
        } catch (RuntimeException | Error e) {
            stops = true;
            if (lease != null && lease.isAcquired()) {
                refundAll(List.of(lease));
            }
            lease = null;
            failure = e;
        }
        List<Lease> refunds = List.of();
        List<Integer> refundedAt = List.of();
        boolean late;
        synchronized (this) {
            inFlight = null;
            late = out.isDone();
            if (!late) {
                answers.add(new Answer(lease, failure, false));
                if (!stops && lease != null && lease.isAcquired()) {
                    grantedAt.add(index);
                    granted.add(lease);
                }
            }
            if (stops || late) {
                refundedAt = List.copyOf(grantedAt);
                refunds = takeGranted();
            }
        }
        if (late) { // the caller gave up meanwhile
            if (lease != null && lease.isAcquired()) {
                refundAll(List.of(lease));
            }
            refundAll(refunds);
        } else if (stops) {
            stop(refunds, refundedAt);
        } else {
            ask(index + 1);
        }
    }

    /** Refunds the earlier grants (at {@code refundedAt}), then finishes with the answers as they stand after. */
    private void stop(List<Lease> refunds, List<Integer> refundedAt) {
        refundAll(refunds).thenAccept(given -> {
            List<Answer> after;
            synchronized (this) {
                after = new ArrayList<>(answers);
            }
            for (int i = 0; i < given.length; i++) {
                if (given[i]) {
                    Answer a = after.get(refundedAt.get(i));
                    after.set(refundedAt.get(i), new Answer(a.lease(), a.failure(), true));
                }
            }
            finish(new Result(after, true), List.of());
        });
    }

    /** The grants nobody has taken yet, taken; the caller holds the lock. */
    private List<Lease> takeGranted() {
        List<Lease> taken = List.copyOf(granted);
        granted.clear();
        grantedAt.clear();
        return taken;
    }

    private void abandon() {
        List<Lease> grants;
        CompletableFuture<Lease> pending;
        synchronized (this) {
            grants = takeGranted();
            pending = inFlight;
        }
        if (pending != null) {
            pending.cancel(false);
        }
        refundAll(grants);
    }

    /** Completes {@link #out} with {@code finish}'s answer; grants nobody will see go back. */
    private void finish(Result result, List<Lease> handedOn) {
        CompletionStage<T> stage;
        try {
            stage = Objects.requireNonNull(finish.apply(result), "the stage finish returned");
        } catch (RuntimeException | Error e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((value, failure) -> {
            boolean delivered = failure == null ? out.complete(value) : out.completeExceptionally(Waits.unwrap(failure));
            if (!delivered || failure != null) {
                refundAll(handedOn);
                if (!delivered && result.stopped() && result.last().lease() != null) {
                    result.last().lease().close();
                }
            }
        });
    }

    /**
     * Refunds every lease; completes, never exceptionally, once all refunds have, with whether each gave
     * permits back.
     */
    private CompletableFuture<boolean[]> refundAll(List<Lease> leases) {
        if (leases.isEmpty()) {
            return CompletableFuture.completedFuture(new boolean[0]);
        }
        List<CompletableFuture<Boolean>> refunds = new ArrayList<>(leases.size());
        for (Lease lease : leases) {
            CompletableFuture<Boolean> refund;
            try {
                refund = lease.refund();
            } catch (RuntimeException e) { // a lease of the user's own making
                refund = CompletableFuture.failedFuture(e);
            }
            refunds.add(refund.handle((gaveBack, failure) -> {
                if (failure != null) {
                    LOG.log(Level.WARNING, "a refund by " + name + " failed; those permits stay spent", failure);
                    return false;
                }
                return Boolean.TRUE.equals(gaveBack);
            }));
        }
        return CompletableFuture.allOf(refunds.toArray(CompletableFuture[]::new)).thenApply(done -> {
            boolean[] given = new boolean[refunds.size()];
            for (int i = 0; i < given.length; i++) {
                given[i] = refunds.get(i).join();
            }
            return given;
        });
    }
}
