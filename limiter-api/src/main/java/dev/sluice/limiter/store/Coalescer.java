package dev.sluice.limiter.store;

import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.CoalescingQueueFullException;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sends every decision to a {@link DecisionStore}, with {@link Lanes} as its batching policy: the one way a
 * decision reaches any store. Coalescing off is a batch of one on the same path: every decision is a call of
 * its own.
 *
 * <p>A decision: its {@link Pending} arrives at its lane, which answers the batch to send now, if any
 * ({@link Lanes#arrive}). A batch holds requests on one key and is one {@link DecisionStore#run} call. Its
 * {@link Outcomes} complete the callers' futures in request order; a failed call fails each of its callers with
 * the failure {@linkplain DecisionStore#translate translated}.
 *
 * <p>One way to complete a call ({@link #answered}), on whichever thread sees the store's answer first. A
 * blocking caller whose request goes alone ({@link #execute}: nothing in flight on its key, or coalescing off)
 * sends it and waits on the store's own future with its deadline, then ends the call on its own thread: no
 * callback is registered and no thread handed over. Otherwise the call is ended on the thread that completes
 * the store's future, which only takes the lane's next batch and completes the callers' futures, and hands the
 * sending of that next batch to the store's {@linkplain DecisionStore#callbackExecutor callback executor}. The
 * runtime continues callers' futures there too, so nothing here runs on a store's own threads for long, nor on
 * the common pool.
 */
public final class Coalescer {
    private final DecisionStore store;
    private final Lanes lanes;
    private final Executor callbacks;

    /** Calls made to the store, and the decisions they carried. */
    private final LongAdder calls = new LongAdder();
    private final LongAdder decisions = new LongAdder();
    /** Decisions dropped unsent (their caller gave up, or their deadline passed). */
    private final LongAdder dropped = new LongAdder();
    /** Calls sent past {@code stallMillis} while another was in flight on their key. */
    private final LongAdder stalls = new LongAdder();
    /** Decisions the store refused at its bound. */
    private final LongAdder capacityRefusals = new LongAdder();
    /** Decisions made on an overflow cell, and those of them that refused permits. */
    private final LongAdder overflowDecisions = new LongAdder();
    private final LongAdder overflowRefusals = new LongAdder();

    public Coalescer(DecisionStore store, Coalescing coalescing) {
        this.store = store;
        this.lanes = new Lanes(coalescing, dropped, stalls);
        this.callbacks = store.callbackExecutor();
    }

    /** The store decisions go to. */
    public DecisionStore store() {
        return store;
    }

    /** Starts one decision; never blocks. A queued one whose future is cancelled or whose deadline passes is never sent. */
    public CompletableFuture<Verdict> submit(StepRequest request, long deadlineNanos) {
        return arrive(request, deadlineNanos, false);
    }

    /**
     * Runs one decision and waits for it at most {@code timeoutNanos}; when the caller gives up (time out,
     * interrupt) a request still queued is cancelled, and so never sent.
     */
    public Verdict execute(StepRequest request, long timeoutNanos)
            throws TimeoutException, ExecutionException, InterruptedException {
        Pending p = arrive(request, System.nanoTime() + timeoutNanos, true);
        if (p.direct != null) {
            awaitDirect(p, timeoutNanos); // p is done when this returns
        }
        try {
            return p.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException | InterruptedException e) {
            p.cancel(false);
            throw e;
        }
    }

    /** A failure nothing was sent for ({@link CoalescingQueueFullException}) or one the store calls transient. */
    public boolean isRetryable(Throwable failure) {
        return failure instanceof CoalescingQueueFullException || store.isRetryable(failure);
    }

    private Pending arrive(StepRequest request, long deadlineNanos, boolean callerWaits) {
        Pending p = new Pending(request, deadlineNanos);
        Lanes.Hop hop = lanes.arrive(p);
        if (hop != null) {
            send(hop, callerWaits ? p : null);
        }
        return p;
    }

    /**
     * Waits on the call that carries only {@code p}, then ends it on this thread. A caller that stops waiting
     * leaves the call to end when the store answers.
     */
    private void awaitDirect(Pending p, long timeoutNanos) throws TimeoutException, InterruptedException {
        Outcomes result = null;
        Throwable failure = null;
        try {
            result = p.direct.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException | InterruptedException e) {
            p.direct.whenComplete((r, f) -> answered(p.hop, r, f, true));
            throw e;
        } catch (ExecutionException | RuntimeException e) {
            failure = e;
        }
        answered(p.hop, result, failure, false);
    }

    /**
     * Sends a batch. {@code waiter}: the blocking caller on this thread, whose request this batch may carry
     * alone; it then waits on the call itself ({@link Pending#direct}).
     */
    private void send(Lanes.Hop hop, Pending waiter) {
        List<Pending> group = hop.requests;
        calls.increment();
        decisions.add(group.size());
        boolean alone = waiter != null && group.size() == 1 && group.get(0) == waiter;
        CompletableFuture<? extends Outcomes> call;
        try {
            call = alone ? store.runForBlockingCaller(requestsOf(group)) : store.run(requestsOf(group));
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        if (alone) {
            waiter.direct = call;
            waiter.hop = hop;
            return;
        }
        call.whenComplete((result, failure) -> answered(hop, result, failure, true));
    }

    private static List<StepRequest> requestsOf(List<Pending> group) {
        if (group.size() == 1) {
            return List.of(group.get(0).request);
        }
        List<StepRequest> list = new ArrayList<>(group.size());
        for (Pending p : group) {
            list.add(p.request);
        }
        return list;
    }

    /**
     * {@code hop} came back with its answers. It first frees the lane ({@link #sendNext}), before any caller
     * hears back, so a caller that asks again at once is sent at once rather than queued; then the callers'
     * futures complete. {@code handOff}: this may run on a store's own thread, where only cheap work may happen.
     */
    private void answered(Lanes.Hop hop, Outcomes result, Throwable failure, boolean handOff) {
        sendNext(hop, handOff);
        complete(hop.requests, result, failure);
    }

    /** Sends the lane's next batch, if one queued: here, or, with {@code handOff}, on the callback executor. */
    private void sendNext(Lanes.Hop done, boolean handOff) {
        Lanes.Hop next = lanes.next(done);
        if (next == null) {
            return;
        }
        if (handOff && callbacks != null) {
            try {
                callbacks.execute(() -> send(next, null));
                return;
            } catch (RejectedExecutionException closed) {
                // shutting down: sent from here
            }
        }
        send(next, null);
    }

    /** Hands each caller of {@code group} its own outcome, in the order they were decided. */
    private void complete(List<Pending> group, Outcomes result, Throwable failure) {
        if (failure != null) {
            Throwable t = store.translate(FutureFailures.unwrap(failure));
            for (Pending p : group) {
                p.completeExceptionally(t);
            }
            return;
        }
        if (result == null || result.size() != group.size()) {
            IllegalStateException e = new IllegalStateException("the store answered "
                    + (result == null ? "nothing" : result.size() + " outcomes") + " for " + group.size()
                    + " requests; do all nodes run the same Sluice version?");
            for (Pending p : group) {
                p.completeExceptionally(new StepOutcomes.StoreFailureException(e.getMessage()));
            }
            return;
        }
        for (int i = 0; i < group.size(); i++) {
            Pending p = group.get(i);
            RuntimeException stepFailure = result.failure(i);
            if (stepFailure == null) {
                Verdict v = result.verdict(i);
                if (Overflow.isCellToken(v.token()) && p.request.op() == Op.ACQUIRE) {
                    overflowDecisions.increment();
                    if (!v.granted() && p.request.permits() > 0) {
                        overflowRefusals.increment();
                    }
                }
                p.complete(v);
            } else {
                if (stepFailure instanceof CapacityExceededException) {
                    capacityRefusals.increment();
                }
                p.completeExceptionally(stepFailure);
            }
        }
    }

    /** Calls made to the store so far. */
    public long calls() {
        return calls.sum();
    }

    /** Decisions those calls carried. */
    public long decisions() {
        return decisions.sum();
    }

    /** Decisions dropped unsent: their caller gave up, or their deadline passed. */
    public long dropped() {
        return dropped.sum();
    }

    /** Calls sent past {@code stallMillis} while another was in flight on their key. */
    public long stalls() {
        return stalls.sum();
    }

    /** Decisions waiting in every lane (not those in flight). */
    public int queued() {
        return lanes.queued();
    }

    /** Decisions of this process refused at the store's bound. */
    public long capacityRefusals() {
        return capacityRefusals.sum();
    }

    /** Decisions of this process made on an overflow cell. */
    public long overflowDecisions() {
        return overflowDecisions.sum();
    }

    /** Those of them that refused permits. */
    public long overflowRefusals() {
        return overflowRefusals.sum();
    }

    @Override
    public String toString() {
        return lanes + " over " + store;
    }
}
