package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastException;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.spi.StepRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Sends every decision of a Hazelcast store: the one component that holds the maps, the callback executor
 * and the invocations (started through {@link KeyCalls}), with {@link Lanes} as its batching policy.
 * Coalescing off is a batch of one on the same path: every decision is a hop of its own.
 *
 * <p>A decision: its {@link Pending} arrives at its lane, which answers the hop to send now, if any
 * ({@link Lanes#arrive}). A hop is sent as one invocation per key ({@code submitToKey} of a
 * {@link StepProcessor} for one request, of a {@link BatchProcessor} for several), or, from
 * {@link #MIN_KEYS_PER_MULTI_KEY_HOP} keys on (EPHEMERAL only), as one {@code submitToKeys}: a multi-key operation costs one
 * partition operation and one backup operation per partition anyway, plus fixed overheads that only pay
 * off once there are enough keys. Every invocation answers {@link BatchResult}s, which complete the callers'
 * futures in request order ({@link #complete}); a failed invocation fails each of its callers with the
 * failure {@link Failures#translate translated}.
 *
 * <p>Threads. A hop of the arriving decision alone (nothing in flight to its partition, or coalescing off)
 * is sent from the caller's thread, as a plain one-request processor. A blocking caller ({@link #execute})
 * then waits on Hazelcast's own future with its deadline (a client call is not cut short by Hazelcast's
 * invocation timeout) and ends the hop itself: no callback is registered on the Hazelcast future, and what
 * queued meanwhile is sent from that caller's thread, with no hand-off. Otherwise the hop is continued on
 * the thread that completes the invocation ({@link KeyCalls#DIRECT}: a Hazelcast response or partition
 * thread), which only takes the lane's next hop and completes the callers' futures, and hands the sending
 * of that next hop to the callback executor. The runtime continues callers' futures on
 * {@link #callbacks()}, never on Hazelcast's threads, and nothing here runs on the common pool.
 *
 * <p>The callback executor is Sluice's own small pool of daemon threads unless the user supplied one;
 * {@link #close()} shuts down only Sluice's own.
 */
final class Sender {
    /** Fewest distinct keys a hop needs to go as one {@code submitToKeys}; see the class comment. */
    static final int MIN_KEYS_PER_MULTI_KEY_HOP = 8;
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final HazelcastInstance instance;
    private final String mapName;
    private volatile IMap<String, long[]> replicated;
    private volatile IMap<String, long[]> ephemeral;
    private final Executor callbacks;
    /** The pool Sluice created for {@link #callbacks}, or {@code null} when the user supplied it. */
    private final ExecutorService ownPool;
    private final Lanes lanes;

    /** Invocations sent (hops), decisions sent, and the lanes' counters, for tests and statistics. */
    final LongAdder hops = new LongAdder();
    final LongAdder decisions = new LongAdder();
    final LongAdder multiKeyHops = new LongAdder();
    final LongAdder dropped = new LongAdder();
    final LongAdder stalls = new LongAdder();
    /** Decisions the owners refused at their map's bound. */
    final LongAdder capacityRefusals = new LongAdder();

    /** @param callbacks the user's executor, or {@code null} for a pool of Sluice's own */
    Sender(HazelcastInstance instance, String mapName, HazelcastCoalescing coalescing, Executor callbacks) {
        this.instance = instance;
        this.mapName = mapName;
        this.ownPool = callbacks == null ? newPool() : null;
        this.callbacks = callbacks == null ? ownPool : callbacks;
        this.lanes = new Lanes(instance, coalescing, dropped, stalls);
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
        if (durability == Durability.EPHEMERAL) {
            IMap<String, long[]> map = ephemeral;
            if (map == null) {
                ephemeral = map = instance.getMap(SluiceHazelcast.ephemeralMapName(mapName));
            }
            return map;
        }
        IMap<String, long[]> map = replicated;
        if (map == null) {
            replicated = map = instance.getMap(mapName);
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
            p.direct.whenCompleteAsync((r, f) -> answered(p.hop, p.hop.requests, true, r, f, true), KeyCalls.DIRECT);
            throw e;
        } catch (ExecutionException | RuntimeException e) {
            failure = Failures.unwrap(e);
        }
        answered(p.hop, p.hop.requests, true, result, failure, false);
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
            answered(hop, requests, true, null, e, true);
            return;
        }
        if (requests.size() == 1) {
            sendKey(hop, map, requests, null, requests.get(0) == waiter ? waiter : null);
            return;
        }
        Map<String, List<Pending>> byKey = new LinkedHashMap<>();
        for (Pending p : requests) {
            byKey.computeIfAbsent(p.request.key(), k -> new ArrayList<>()).add(p);
        }
        // Only without backups: Hazelcast answers a multi-partition operation before its backups are
        // acknowledged, which would weaken REPLICATED's synchronous backup to an asynchronous one.
        if (byKey.size() >= MIN_KEYS_PER_MULTI_KEY_HOP && requests.get(0).request.durability() == Durability.EPHEMERAL) {
            sendKeys(hop, map, byKey);
            return;
        }
        AtomicInteger parts = byKey.size() == 1 ? null : new AtomicInteger(byKey.size());
        for (List<Pending> group : byKey.values()) {
            sendKey(hop, map, group, parts, null);
        }
    }

    /** One invocation of {@code group}, all on one key; {@code parts} counts the hop's invocations still out. */
    private void sendKey(Lanes.Hop hop, IMap<String, long[]> map, List<Pending> group, AtomicInteger parts,
            Pending waiter) {
        hops.increment();
        String key = group.get(0).request.key();
        CompletableFuture<BatchResult> call;
        try {
            EntryProcessor<String, long[], BatchResult> processor = group.size() == 1
                    ? new StepProcessor(group.get(0).request) : new BatchProcessor(Map.of(key, requests(group)));
            call = KeyCalls.submitToKey(map, key, processor, BatchResult.class);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        if (waiter != null) {
            waiter.direct = call;
            waiter.hop = hop;
            return;
        }
        call.whenCompleteAsync((result, failure) -> answered(hop, group,
                parts == null || parts.decrementAndGet() == 0, result, failure, true), KeyCalls.DIRECT);
    }

    /** One {@code submitToKeys} of every group. */
    private void sendKeys(Lanes.Hop hop, IMap<String, long[]> map, Map<String, List<Pending>> byKey) {
        hops.increment();
        multiKeyHops.increment();
        CompletionStage<Map<String, BatchResult>> call;
        try {
            Map<String, List<StepRequest>> requests = new LinkedHashMap<>();
            byKey.forEach((key, group) -> requests.put(key, requests(group)));
            BatchProcessor processor = new BatchProcessor(requests);
            call = map.submitToKeys(processor.keys(), processor);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        call.whenCompleteAsync((results, failure) -> {
            sendNext(hop, true);
            byKey.forEach((key, group) -> complete(group, failure == null ? answerFor(results, key) : null, failure));
        }, KeyCalls.DIRECT);
    }

    private static List<StepRequest> requests(List<Pending> group) {
        List<StepRequest> list = new ArrayList<>(group.size());
        for (Pending p : group) {
            list.add(p.request);
        }
        return list;
    }

    /** The answer for {@code key} in a multi-key answer, or {@code null} when there is none of Sluice's. */
    private static BatchResult answerFor(Map<String, ?> results, String key) {
        return results != null && results.get(key) instanceof BatchResult result ? result : null;
    }

    /**
     * One invocation of {@code hop} came back with {@code group}'s answers. The last one first frees the lane
     * ({@link #sendNext}), before any caller hears back, so a caller that asks again at once is sent at once
     * rather than queued; then the callers' futures complete. {@code handOff}: this runs on a Hazelcast
     * thread, where only cheap work may happen.
     */
    private void answered(Lanes.Hop hop, List<Pending> group, boolean last, BatchResult result, Throwable failure,
            boolean handOff) {
        if (last) {
            sendNext(hop, handOff);
        }
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
                group.get(i).complete(result.verdict(i));
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
        return lanes + ", maps " + mapName + ", " + SluiceHazelcast.ephemeralMapName(mapName) + " on "
                + instance.getName();
    }
}
