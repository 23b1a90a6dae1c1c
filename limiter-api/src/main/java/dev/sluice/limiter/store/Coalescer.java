package dev.sluice.limiter.store;

import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.CoalescingQueueFullException;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.RequestCodec;
import dev.sluice.limiter.algorithm.Verdict;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sends every decision to a {@link DecisionStore}, in batches per key: the one way a decision reaches any store.
 * Coalescing off is a batch of one on the same path: every decision is a call of its own.
 *
 * <p>A decision: its {@code Pending} arrives at its key's lane, which answers the batch to send now, if any
 * ({@code hopFor}). A batch holds requests on one key and is one {@link DecisionStore#run} call. Its
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
 *
 * <p>The batching policy, as {@link Coalescing} sets it: which decisions go together
 * in one hop, and when. Natural batching per key, with no timer: each key (and map) with something in
 * flight has a {@code Lane} with one hop in flight at most (but see the stall escape in {@code hopFor}).
 * A decision for a key with nothing in flight is a hop of its own, at once: a lone caller pays nothing
 * extra. A decision for a key with a hop in flight waits in the lane's bounded queue; when the hop returns
 * ({@code nextHop}), whatever queued meanwhile (up to {@code maxBatchRequests} requests and about
 * {@code maxBatchBytes} of payload) is the next hop, one run of them all where the key lives; the rest waits for
 * the one after. A full queue fails the decision at once with a retryable
 * {@link CoalescingQueueFullException} (nothing was sent, so a retry cannot charge twice). Coalescing off,
 * every decision is a hop of its own, at once, and nothing is ever queued.
 *
 * <p>Order across the stall escape is fairness, not safety. Requests leave a lane in arrival order, and
 * one hop's requests are decided in that order, but hops in flight together for one key are separate
 * calls, which the store may run in any order (a hop retried after a member left runs after a later
 * one); so past {@code stallMillis} a later arrival may be decided first, and be granted where an earlier
 * one is refused. Exactness does not depend on that order: every step runs atomically where the key lives,
 * each on the state the previous one wrote, so a limit of N still grants at most N
 * (exactly N when demand exceeds it). A release cannot overtake its own acquisition (it carries the
 * grant's token), and a renewal run after its lease's release is refused, never recreating it. Shown with
 * {@code stallMillis} 0, where every arrival behind a busy hop is one more hop in flight
 * ({@code HazelcastCoalescingStallTest}).
 *
 * <p>Why lanes per key, not per partition or per owner member: a hop gains only where its requests share
 * a key (one run, one write, one backup of the final state instead of one each). Keys that merely share a
 * partition still cost one partition operation and one backup each (one invocation per key, or, in one
 * multi-key operation, a partition operation whose answer Hazelcast 5.7 sends before its backups are
 * acknowledged), so holding a decision back behind another key's hop costs it a round trip for nothing.
 * Measured on many uniform keys, both coarser groupings (lanes per partition, and one message per owner
 * member with every partition's keys run on arrival) fell further below the uncoalesced rate than lanes per
 * key did (the benchmark pages have the runs).
 *
 * <p>A queued request whose future is already done (cancelled, or abandoned by a caller that timed out)
 * or whose deadline has passed is dropped when the next hop is taken, never sent: the runtime cancels the
 * future of an acquisition whose caller gave up (timed out, cancelled), blocking or not, so a queued one
 * is never charged. Expired requests are failed outside the lane's lock.
 *
 * <p>A key with one hop in flight and nothing queued behind it is marked by that decision itself, with no lane and
 * no lock, so a decision alone on its key costs what it costs with coalescing off plus one insert and one removal in
 * a concurrent map; the first arrival behind it puts a lane in its place. A lane exists only while its key has a hop
 * in flight: the hop that leaves it idle removes it, so there are at most as many lanes as decisions in flight.
 */
public final class Coalescer {
    private final DecisionStore store;
    private final Executor callbacks;
    private final Coalescing coalescing;
    private final long stallNanos;
    /** The lanes of each durability's map: looked up by the request's own key string, nothing allocated. */
    private final Map<Durability, Home> lanes = new EnumMap<>(Durability.class);

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
        this.callbacks = store.callbackExecutor();
        this.coalescing = coalescing;
        this.stallNanos = TimeUnit.MILLISECONDS.toNanos(coalescing.stallMillis());
        for (Durability d : Durability.values()) {
            lanes.put(d, new Home());
        }
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
        return execute(request, timeoutNanos, null);
    }

    /**
     * {@link #execute(StepRequest, long)}, handing {@code late} the verdict of a request the store ran although its
     * caller gave up, so that what it granted can be given back: a request still queued is dropped at its deadline
     * by itself, and one already sent answers to {@code late} when the store does. Without {@code late} (null), as
     * {@link #execute(StepRequest, long)}.
     */
    public Verdict execute(StepRequest request, long timeoutNanos, Consumer<Verdict> late)
            throws TimeoutException, ExecutionException, InterruptedException {
        Pending p = arrive(request, System.nanoTime() + timeoutNanos, true);
        try {
            if (p.direct != null) {
                awaitDirect(p, timeoutNanos); // p is done when this returns
            }
            return p.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException | InterruptedException e) {
            if (late == null) {
                p.cancel(false);
            } else {
                p.thenAccept(late);
            }
            throw e;
        }
    }

    /** A failure nothing was sent for ({@link CoalescingQueueFullException}) or one the store calls transient. */
    public boolean isRetryable(Throwable failure) {
        return failure instanceof CoalescingQueueFullException || store.isRetryable(failure);
    }

    private Pending arrive(StepRequest request, long deadlineNanos, boolean callerWaits) {
        Pending p = new Pending(request, deadlineNanos);
        Hop hop = hopFor(p);
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
    private void send(Hop hop, Pending waiter) {
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
    private void answered(Hop hop, Outcomes result, Throwable failure, boolean handOff) {
        sendNext(hop, handOff);
        complete(hop.requests, result, failure);
    }

    /** Sends the lane's next batch, if one queued: here, or, with {@code handOff}, on the callback executor. */
    private void sendNext(Hop done, boolean handOff) {
        Hop next = nextHop(done);
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
        int n = 0;
        for (Home home : lanes.values()) {
            for (Object held : home.values()) {
                if (held instanceof Lane lane) {
                    synchronized (lane) {
                        n += lane.queued();
                    }
                }
            }
        }
        return n;
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
        return (!coalescing.enabled() ? "no coalescing" : "Coalescer[maxBatchRequests=" + coalescing.maxBatchRequests()
                + ", maxBatchBytes=" + coalescing.maxBatchBytes() + ", maxQueuedPerKey="
                + coalescing.maxQueuedPerKey() + ", stallMillis=" + coalescing.stallMillis() + "]") + " over " + store;
    }

    /**
     * One map's hops in flight by key. A key with one hop in flight and nothing queued behind it maps to that hop's
     * {@link Pending} itself, so a decision alone on its key costs one insert and one removal here and nothing else
     * (no lane, no lock); the first arrival behind it replaces it with a {@link Lane}.
     */
    private static final class Home extends ConcurrentHashMap<String, Object> {
        private static final long serialVersionUID = 1L;
    }

    /**
     * One key's queue and its hops in flight (at least one while it is in its {@link #home}; one more per stall, see
     * {@link #hopFor}); guarded by itself.
     */
    private static final class Lane {
        final String key;
        final Home home;
        /** Created on the first decision queued. */
        ArrayDeque<Pending> queue;
        int inFlight;
        long lastSendNanos;
        /** Idle and out of {@link #home}: an arrival that still found it starts over. */
        boolean retired;

        Lane(String key, Home home, int inFlight, long lastSendNanos) {
            this.key = key;
            this.home = home;
            this.inFlight = inFlight;
            this.lastSendNanos = lastSendNanos;
        }

        int queued() {
            return queue == null ? 0 : queue.size();
        }

        void enqueue(Pending p) {
            if (queue == null) {
                queue = new ArrayDeque<>();
            }
            queue.add(p);
        }
    }

    /**
     * What one hop sends: requests of one key and map, in arrival order, never empty. {@link #lane} is the key's
     * lane, or {@code null} for a decision that left alone (with coalescing on, marked in flight by itself in its
     * map's {@link Home}).
     */
    private static final class Hop {
        final Lane lane;
        final List<Pending> requests;
        /** Taken off the queue because their deadline passed; to be failed, never sent. */
        List<Pending> expired;

        Hop(Lane lane, List<Pending> requests) {
            this.lane = lane;
            this.requests = requests;
        }
    }

    /**
     * Takes an arriving decision and returns the hop its caller sends now, or {@code null} when it waits for
     * the hop in flight on its key (or was refused: a full queue). The hop is the decision alone when
     * nothing is in flight on the key (or coalescing is off). One escape from head-of-line blocking:
     * when the lane's last hop left more than {@code stallMillis} ago (a slow step, a member in trouble),
     * this arrival takes what queued, and itself, as an extra hop in flight, rather than wait behind it;
     * requests still leave in arrival order, though the store may run the hops in flight in any order (see
     * the batching policy in the class comment).
     */
    private Hop hopFor(Pending p) {
        if (!coalescing.enabled()) {
            return new Hop(null, List.of(p));
        }
        Home home = lanes.get(p.request.durability());
        String key = p.request.key();
        Hop taken;
        while (true) {
            long now = System.nanoTime();
            p.sentNanos = now; // before it is published: an arrival behind it reads it
            Object held = home.putIfAbsent(key, p);
            if (held == null) {
                return new Hop(null, List.of(p)); // nothing in flight on the key: alone, at once
            }
            if (held instanceof Pending alone) {
                // One hop in flight and nothing queued: a lane takes its place, with this arrival queued, or, past
                // the stall, sent as a second hop in flight. Built before it is published, so no lock yet.
                boolean stalled = stallNanos == 0 || now - alone.sentNanos > stallNanos;
                Lane lane = new Lane(key, home, stalled ? 2 : 1, stalled ? now : alone.sentNanos);
                if (!stalled) {
                    lane.enqueue(p);
                }
                if (!home.replace(key, alone, lane)) {
                    continue; // that hop came back meanwhile, or another arrival made the lane first
                }
                if (!stalled) {
                    return null;
                }
                stalls.increment();
                return new Hop(lane, List.of(p));
            }
            Lane lane = (Lane) held;
            synchronized (lane) {
                if (lane.retired) {
                    continue; // left idle and removed since this thread found it
                }
                if (lane.queued() >= coalescing.maxQueuedPerKey()) {
                    taken = null;
                } else {
                    lane.enqueue(p);
                    if (stallNanos > 0 && now - lane.lastSendNanos <= stallNanos) {
                        return null;
                    }
                    taken = take(lane, now);
                    if (!taken.requests.isEmpty()) {
                        stalls.increment();
                        lane.inFlight++;
                        lane.lastSendNanos = now;
                    }
                }
            }
            break;
        }
        if (taken == null) {
            p.completeExceptionally(new CoalescingQueueFullException(coalescing.maxQueuedPerKey()));
            return null;
        }
        return sendable(taken);
    }

    /**
     * A hop came back: returns the next hop of its lane (what queued meanwhile, within the batch bounds), or
     * {@code null} when nothing did: the lane is then idle, and removed unless another hop is in flight;
     * called once per hop. A hop that left alone and found nobody behind it only unmarks its key.
     */
    private Hop nextHop(Hop done) {
        Lane lane = done.lane;
        if (lane == null) {
            if (!coalescing.enabled()) {
                return null;
            }
            Pending alone = done.requests.get(0);
            Home home = lanes.get(alone.request.durability());
            if (home.remove(alone.request.key(), alone)) {
                return null;
            }
            // An arrival put a lane in its place, counting this hop in flight: it stays until this hop is done.
            lane = (Lane) home.get(alone.request.key());
        }
        Hop taken;
        synchronized (lane) {
            long now = System.nanoTime();
            taken = lane.queued() == 0 ? null : take(lane, now);
            if (taken == null || taken.requests.isEmpty()) {
                // this hop's slot is released; take() leaves the queue empty when it takes nothing
                if (--lane.inFlight == 0) {
                    lane.retired = true;
                    lane.home.remove(lane.key, lane);
                }
            } else {
                lane.lastSendNanos = now; // this hop's slot passes to the next one
            }
        }
        return taken == null ? null : sendable(taken);
    }

    /** Takes the next hop from the head of the queue, dropping what must not be sent; holds the lane's lock. */
    private Hop take(Lane lane, long now) {
        Hop hop = new Hop(lane, new ArrayList<>());
        int bytes = 0;
        while (lane.queued() > 0 && hop.requests.size() < coalescing.maxBatchRequests()) {
            Pending p = lane.queue.peek();
            if (p.isDone()) {
                lane.queue.poll();
                dropped.increment();
                continue;
            }
            if (p.deadline != Long.MAX_VALUE && now - p.deadline >= 0) {
                lane.queue.poll();
                if (hop.expired == null) {
                    hop.expired = new ArrayList<>();
                }
                hop.expired.add(p);
                continue;
            }
            if (!hop.requests.isEmpty() && bytes + p.bytes() > coalescing.maxBatchBytes()) {
                break;
            }
            lane.queue.poll();
            bytes += p.bytes();
            hop.requests.add(p);
        }
        return hop;
    }

    /** Fails what expired in {@code taken} (outside the lane's lock); the hop, or null when nothing is left. */
    private Hop sendable(Hop taken) {
        if (taken.expired != null) {
            for (Pending p : taken.expired) {
                dropped.increment();
                p.completeExceptionally(new TimeoutException("the decision's deadline passed before it was sent"));
            }
        }
        return taken.requests.isEmpty() ? null : taken;
    }

    /**
     * One caller's decision on its way through the coalescer, and the future that caller holds: the
     * future is the pending request itself, so a decision costs no second object for it. Completed, once, by
     * the invocation that carried it, or failed before it was sent (a full queue, a deadline passed);
     * cancelled by a caller that gave up, which drops it if it is still queued.
     */
    private static final class Pending extends CompletableFuture<Verdict> {
        /** Rough wire size of a one-spec request besides its key: its words and framing (a composite's is more). */
        static final int REQUEST_BYTES = (RequestCodec.FIXED_WORDS + RequestCodec.SPEC_WORDS) * 8 + 16;

        final StepRequest request;
        /** When the caller stops waiting: a {@link System#nanoTime()} reading, or {@link Long#MAX_VALUE}. */
        final long deadline;
        /**
         * Set, and read, on the blocking caller's own thread when its request is sent alone from there: the
         * call it waits on itself, and the hop it ends when that returns. Otherwise {@code null}.
         */
        CompletableFuture<? extends Outcomes> direct;
        Hop hop;
        /** When it left alone on its key with coalescing on (a {@link System#nanoTime()} reading), for the stall. */
        long sentNanos;

        Pending(StepRequest request, long deadline) {
            this.request = request;
            this.deadline = deadline;
        }

        /** About the payload this request adds to a hop. */
        int bytes() {
            return REQUEST_BYTES + request.key().length() * 3;
        }
    }
}
