package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastException;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.spi.StepRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sends every decision of a Hazelcast store: the one component that holds the maps, the callback executor
 * and the invocations (started through {@link HazelcastInternals.Calls}), with {@link Lanes} as its batching policy.
 * Coalescing off is a batch of one on the same path: every decision is a hop of its own.
 *
 * <p>A decision: its {@link Pending} arrives at its lane, which answers the hop to send now, if any
 * ({@link Lanes#arrive}). A hop holds requests on one key and is one invocation: {@code submitToKey} of one
 * {@link StepProcessor} carrying all of them. It answers
 * {@link BatchResult}s, which complete the callers' futures in request order ({@link #complete}); a failed
 * invocation fails each of its callers with the failure {@link Failures#translate translated}.
 *
 * <p>Threads. A hop of the arriving decision alone (nothing in flight on its key, or coalescing off)
 * is sent from the caller's thread, as a plain one-request processor. A blocking caller ({@link #execute})
 * then waits on Hazelcast's own future with its deadline (a client call is not cut short by Hazelcast's
 * invocation timeout) and ends the hop itself: no callback is registered on the Hazelcast future, and what
 * queued meanwhile is sent from that caller's thread, with no hand-off. Otherwise the hop is continued on
 * the thread that completes the invocation ({@link HazelcastInternals#DIRECT}: a Hazelcast response or partition
 * thread), which only takes the lane's next hop and completes the callers' futures, and hands the sending
 * of that next hop to the callback executor. The runtime continues callers' futures on
 * {@link #callbacks()}, never on Hazelcast's threads, and nothing here runs on the common pool.
 *
 * <p>The callback executor is Sluice's own small pool of daemon threads unless the user supplied one;
 * {@link #close()} shuts down only Sluice's own.
 */
final class Sender {
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final HazelcastInstance instance;
    private final String mapName;
    /** Each durability's map by ordinal, looked up on first use ({@link #map}). */
    private final AtomicReferenceArray<IMap<String, long[]>> maps =
            new AtomicReferenceArray<>(Durability.values().length);
    private final Executor callbacks;
    /** The pool Sluice created for {@link #callbacks}, or {@code null} when the user supplied it. */
    private final ExecutorService ownPool;
    private final Lanes lanes;
    private final HazelcastInternals.Calls calls;

    /** Invocations sent (hops), decisions sent, and the lanes' counters, for tests and statistics. */
    final LongAdder hops = new LongAdder();
    final LongAdder decisions = new LongAdder();
    final LongAdder dropped = new LongAdder();
    final LongAdder stalls = new LongAdder();
    /** Decisions the owners refused at their map's bound. */
    final LongAdder capacityRefusals = new LongAdder();
    /** Decisions made on an overflow cell for this process, and those of them that refused permits. */
    final LongAdder overflowDecisions = new LongAdder();
    final LongAdder overflowRefusals = new LongAdder();

    /** @param callbacks the user's executor, or {@code null} for a pool of Sluice's own */
    Sender(HazelcastInstance instance, String mapName, HazelcastCoalescing coalescing, Executor callbacks) {
        this(instance, mapName, coalescing, callbacks, HazelcastInternals.forInstance(instance));
    }

    /** @param calls how invocations start: {@link HazelcastInternals#publicOnly} tests the fallback */
    Sender(HazelcastInstance instance, String mapName, HazelcastCoalescing coalescing, Executor callbacks,
            HazelcastInternals.Calls calls) {
        this.instance = instance;
        this.mapName = mapName;
        this.ownPool = callbacks == null ? newPool() : null;
        this.callbacks = callbacks == null ? ownPool : callbacks;
        this.lanes = new Lanes(coalescing, dropped, stalls);
        this.calls = calls;
    }

    private static ExecutorService newPool() {
        int id = POOLS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        return Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
            Thread t = new Thread(r, "sluice-hazelcast-" + id + "-callback-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** How this sender starts invocations. */
    HazelcastInternals.Calls calls() {
        return calls;
    }

    /** The name of the map of replicated limiters. */
    String mapName() {
        return mapName;
    }

    /** Where callers' futures are continued (see the class comment). */
    Executor callbacks() {
        return callbacks;
    }

    /** Shuts down the callback pool if Sluice created it; a user's executor is left alone. */
    void close() {
        if (ownPool != null) {
            ownPool.shutdown();
        }
    }

    /**
     * The map for a durability. Looked up on first use, not at creation: a client started with
     * {@code asyncStart} cannot create a map proxy while it is offline, and that must fail one decision
     * (which then follows its failure mode), not the creation of the limiters.
     */
    IMap<String, long[]> map(Durability durability) {
        int at = durability.ordinal();
        IMap<String, long[]> map = maps.get(at);
        if (map == null) {
            map = instance.getMap(SluiceHazelcast.mapName(mapName, durability));
            maps.set(at, map);
        }
        return map;
    }

    /** Starts one decision; never blocks. A queued one whose future is cancelled or whose deadline passes is never sent. */
    CompletableFuture<Verdict> submit(StepRequest request, long deadlineNanos) {
        return arrive(request, deadlineNanos, false);
    }

    /**
     * Runs one decision and waits for it at most {@code timeoutNanos}; when the caller gives up (time out,
     * interrupt) a request still queued is cancelled, and so never sent.
     */
    Verdict execute(StepRequest request, long timeoutNanos)
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

    private Pending arrive(StepRequest request, long deadlineNanos, boolean callerWaits) {
        Pending p = new Pending(request, deadlineNanos, callerWaits);
        Lanes.Hop hop = lanes.arrive(p);
        if (hop != null) {
            send(hop, callerWaits ? p : null);
        }
        return p;
    }

    /**
     * Waits on the invocation of a hop that carries only {@code p}, then ends the hop on this thread. A
     * caller that stops waiting leaves the hop to end when Hazelcast answers.
     */
    private void awaitDirect(Pending p, long timeoutNanos) throws TimeoutException, InterruptedException {
        BatchResult result = null;
        Throwable failure = null;
        try {
            result = p.direct.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException | InterruptedException e) {
            p.direct.whenCompleteAsync((r, f) -> answered(p.hop, p.hop.requests, r, f, true), HazelcastInternals.DIRECT);
            throw e;
        } catch (ExecutionException | RuntimeException e) {
            failure = Failures.unwrap(e);
        }
        answered(p.hop, p.hop.requests, result, failure, false);
    }

    /**
     * Sends a hop. {@code waiter}: the blocking caller on this thread, whose request this hop may carry alone;
     * it then waits on the invocation itself ({@link Pending#direct}).
     */
    private void send(Lanes.Hop hop, Pending waiter) {
        List<Pending> requests = hop.requests;
        decisions.add(requests.size());
        IMap<String, long[]> map;
        try {
            map = map(requests.get(0).request.durability());
        } catch (RuntimeException e) {
            hops.increment();
            answered(hop, requests, null, e, true);
            return;
        }
        hops.increment();
        String key = requests.get(0).request.key();
        CompletableFuture<BatchResult> call;
        try {
            StepProcessor processor = requests.size() == 1
                    ? new StepProcessor(map.getName(), requests.get(0).request)
                    : new StepProcessor(map.getName(), requests(requests));
            call = calls.submitToKey(map, key, processor, BatchResult.class, callbacks);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        } catch (LinkageError e) { // a hop that cannot start must fail its callers and free its lane, never wedge it
            call = CompletableFuture.failedFuture(new SupportedVersions.Unlinked(e));
        }
        if (waiter != null && requests.size() == 1 && requests.get(0) == waiter) {
            waiter.direct = call;
            waiter.hop = hop;
            return;
        }
        call.whenCompleteAsync((result, failure) -> answered(hop, requests, result, failure, true), HazelcastInternals.DIRECT);
    }

    private static List<StepRequest> requests(List<Pending> group) {
        List<StepRequest> list = new ArrayList<>(group.size());
        for (Pending p : group) {
            list.add(p.request);
        }
        return list;
    }

    /**
     * {@code hop} came back with its answers. It first frees the lane ({@link #sendNext}), before any caller
     * hears back, so a caller that asks again at once is sent at once rather than queued; then the callers'
     * futures complete. {@code handOff}: this runs on a Hazelcast thread, where only cheap work may happen.
     */
    private void answered(Lanes.Hop hop, List<Pending> group, BatchResult result, Throwable failure,
            boolean handOff) {
        sendNext(hop, handOff);
        complete(group, result, failure);
    }

    /** Sends the lane's next hop, if one queued: here, or, with {@code handOff}, on the callback executor. */
    private void sendNext(Lanes.Hop done, boolean handOff) {
        Lanes.Hop next = lanes.next(done);
        if (next == null) {
            return;
        }
        if (handOff) {
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
    private void complete(List<Pending> group, BatchResult result, Throwable failure) {
        if (failure != null) {
            Throwable t = Failures.translate(failure);
            for (Pending p : group) {
                p.completeExceptionally(t);
            }
            return;
        }
        if (result == null || result.size() != group.size()) {
            IllegalStateException e = new IllegalStateException("the partition owner answered "
                    + (result == null ? "nothing" : result.size() + " outcomes") + " for " + group.size()
                    + " requests; do members and clients run the same Sluice version?");
            for (Pending p : group) {
                p.completeExceptionally(new HazelcastException(e.getMessage(), e));
            }
            return;
        }
        for (int i = 0; i < group.size(); i++) {
            RuntimeException stepFailure = result.failure(i);
            if (stepFailure == null) {
                Verdict v = result.verdict(i);
                if (Overflow.isCellToken(v.token()) && group.get(i).request.op() == Op.ACQUIRE) {
                    overflowDecisions.increment();
                    if (!v.granted() && group.get(i).request.permits() > 0) {
                        overflowRefusals.increment();
                    }
                }
                group.get(i).complete(v);
            } else {
                if (stepFailure instanceof CapacityExceededException) {
                    capacityRefusals.increment();
                }
                group.get(i).completeExceptionally(stepFailure);
            }
        }
    }

    /** Requests waiting in every lane (not those in flight). */
    int queued() {
        return lanes.queued();
    }

    @Override
    public String toString() {
        return lanes + ", maps " + mapName + ", " + SluiceHazelcast.ephemeralMapName(mapName) + ", "
                + SluiceHazelcast.asyncBackupMapName(mapName) + " on "
                + instance.getName();
    }
}
