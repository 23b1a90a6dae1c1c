package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastException;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.spi.StepRequest;
import dev.sluice.limiter.algorithm.Verdict;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Natural batching of decisions per partition, with no timer. Each partition (and map) has a {@link Lane}
 * with one hop in flight at most (but see the stall escape in {@link #submit}). A decision for a lane with
 * nothing in flight is sent at once, alone, as the plain one-request {@link StepProcessor}: a lone caller
 * pays nothing extra. A decision for a lane with a hop in flight waits in the lane's bounded queue; when
 * the hop returns, whatever queued meanwhile (up to {@code maxBatchRequests} requests and about
 * {@code maxBatchBytes} of payload) is sent as the next hop ({@link #send}): the requests on one key always
 * as one invocation (a {@link BatchProcessor} run when there are several), and many keys as one
 * {@code submitToKeys}; the rest waits for the next hop. A full queue fails the decision at once with a
 * retryable {@link CoalescingQueueFullException} (nothing was sent, so a retry cannot charge twice).
 *
 * <p>Order across the stall escape is fairness, not safety. Requests leave a lane in arrival order, and
 * one hop's requests on a key are decided in that order, but hops in flight together for one partition
 * are separate invocations, which the owner may run in any order (a hop retried after a member left runs
 * after a later one); so past {@code stallMillis} a later arrival may be decided first, and be granted
 * where an earlier one is refused. Exactness does not depend on that order: every step runs atomically on
 * the owner's partition thread, each on the state the previous one wrote, so a limit of N still grants at
 * most N (exactly N when demand exceeds it). A release cannot overtake its own acquisition (it carries
 * the grant's token), and a renewal run after its lease's release is refused, never recreating it.
 * Shown with {@code stallMillis} 0, where every arrival behind a busy hop is one more hop in flight
 * ({@code HazelcastCoalescingStallTest}).
 *
 * <p>Why lanes per partition and not per owner member: the owner runs a partition's operations one at a
 * time on one thread anyway, so waiting for the partition's hop in flight costs a caller little, while
 * waiting behind another partition's hop costs a whole round trip for nothing. And a multi-key hop is
 * dearer than the hops it replaces on Hazelcast 5.7: {@code submitToKeys} runs one operation per partition
 * on the owner as well, and its future continues on a new thread per call when the common pool's
 * parallelism is 1 (measured in {@code benchmarks/}: per-member lanes ran 0.3–0.6× the uncoalesced rate on
 * 100,000 uniform keys at 32 threads). So the gain is where it is real: many decisions on one key (or one
 * partition) become one run, one write and one backup.
 *
 * <p>A queued request whose future is already done (cancelled, or abandoned by a caller that timed out)
 * or whose deadline has passed is dropped before sending. The runtime cancels the future of an acquisition
 * whose caller gave up (timed out, cancelled), blocking or not, so a queued one is never charged. The
 * callers' futures complete on the thread that completed the invocation (the runtime continues them on
 * the store's executor); building and sending a next batch runs on the store's executor, never on a
 * Hazelcast partition or response thread.
 *
 * <p>Lanes are per partition id and map: at most twice the partition count, created on first use.
 */
final class Coalescer {
    /** Rough wire size of one request besides its key: seven spec and request words and framing. */
    static final int REQUEST_BYTES = dev.sluice.limiter.algorithm.RequestCodec.WORDS * 8 + 16;
    /** Fewest distinct keys a batch needs to go as one {@code submitToKeys}; see {@link #send}. */
    static final int MIN_KEYS_PER_MULTI_KEY_HOP = 8;

    private final HazelcastInstance instance;
    private final Function<Durability, IMap<String, long[]>> maps;
    private final Function<Throwable, Throwable> translate;
    private final Executor executor;
    private final int maxBatchRequests;
    private final int maxBatchBytes;
    private final int maxQueued;
    private final long stallNanos;
    private final ConcurrentHashMap<LaneKey, Lane> lanes = new ConcurrentHashMap<>();

    /** Invocations sent (hops) and decisions sent, for tests and statistics. */
    final LongAdder hops = new LongAdder();
    final LongAdder decisions = new LongAdder();
    final LongAdder dropped = new LongAdder();
    final LongAdder stalls = new LongAdder();
    final LongAdder multiKeyHops = new LongAdder();

    Coalescer(HazelcastInstance instance, Function<Durability, IMap<String, long[]>> maps,
            Function<Throwable, Throwable> translate, Executor executor, HazelcastCoalescing options) {
        this.instance = instance;
        this.maps = maps;
        this.translate = translate;
        this.executor = executor;
        this.maxBatchRequests = options.maxBatchRequests();
        this.maxBatchBytes = options.maxBatchBytes();
        this.maxQueued = options.maxQueuedPerPartition();
        this.stallNanos = TimeUnit.MILLISECONDS.toNanos(options.stallMillis());
    }

    private record LaneKey(int partition, Durability durability) {}

    /**
     * One partition's queue and its invocations in flight (normally at most one; one more per stall,
     * see {@link #submit}); guarded by itself.
     */
    private static final class Lane {
        final Durability durability;
        final ArrayDeque<Pending> queue = new ArrayDeque<>();
        int inFlight;
        long lastSendNanos;

        Lane(Durability durability) {
            this.durability = durability;
        }
    }

    /**
     * One caller's request: {@code deadline} is a {@link System#nanoTime()} or {@link Long#MAX_VALUE}.
     * When a blocking caller's request is sent alone at once from its own thread, {@link #direct} is the
     * Hazelcast future (of a {@link BatchResult}) it waits on, and that caller ends the hop
     * ({@link #finishDirect}): no callback is registered on the Hazelcast future, which costs a lot more
     * than a plain wait.
     */
    static final class Pending {
        final StepRequest request;
        final CompletableFuture<Verdict> future;
        final long deadline;
        final boolean callerWaits;
        CompletableFuture<?> direct;
        Lane lane;
        final AtomicBoolean finished = new AtomicBoolean();

        Pending(StepRequest request, long deadline, boolean callerWaits) {
            this.request = request;
            this.future = new CompletableFuture<>();
            this.deadline = deadline;
            this.callerWaits = callerWaits;
        }

        int bytes() {
            return REQUEST_BYTES + request.key().length() * 3;
        }
    }

    /**
     * Starts one decision. Sent at once when nothing is in flight to the key's partition; else queued for the
     * next hop. One escape from head-of-line blocking: when the lane's last hop left more than
     * {@code stallMillis} ago (a slow step, a member in trouble), this arrival sends what queued, and
     * itself, as an extra hop in flight, rather than wait behind it; requests still leave in arrival order,
     * though the owner may run the hops in flight in any order (see the class comment).
     */
    CompletableFuture<Verdict> submit(StepRequest request, long deadlineNanos) {
        return enqueue(request, deadlineNanos, false).future;
    }

    /**
     * {@link #submit}, returning the request itself. With {@code callerWaits}, the calling thread will
     * block for the verdict: if the request is sent at once, {@link Pending#direct} is set, and the caller
     * must call {@link #finishDirect} when it has the result or {@link #abandonDirect} when it gives up.
     */
    Pending enqueue(StepRequest request, long deadlineNanos, boolean callerWaits) {
        Pending p = new Pending(request, deadlineNanos, callerWaits);
        Lane lane = lanes.computeIfAbsent(new LaneKey(partition(request.key()), request.durability()),
                k -> new Lane(k.durability()));
        List<Pending> batch;
        List<Pending> expired = new ArrayList<>();
        synchronized (lane) {
            long now = System.nanoTime();
            if (lane.inFlight == 0) {
                lane.inFlight = 1;
                lane.lastSendNanos = now;
                batch = null;
            } else if (lane.queue.size() >= maxQueued) {
                p.future.completeExceptionally(new CoalescingQueueFullException(maxQueued));
                return p;
            } else {
                lane.queue.add(p);
                if (stallNanos > 0 && now - lane.lastSendNanos <= stallNanos) {
                    return p;
                }
                batch = take(lane, now, expired);
                if (!batch.isEmpty()) {
                    stalls.increment();
                    lane.inFlight++;
                    lane.lastSendNanos = now;
                }
            }
        }
        if (batch == null) {
            sendFirst(lane, p);
            return p;
        }
        expire(expired);
        if (!batch.isEmpty()) {
            send(lane, batch);
        }
        return p;
    }

    private int partition(String key) {
        try {
            return instance.getPartitionService().getPartition(key).getPartitionId();
        } catch (RuntimeException e) { // a client with no partition table yet: one lane for the unknown
            return -1;
        }
    }

    /**
     * Sends a request alone, at once, from its caller's thread (the lane was idle), exactly as without
     * coalescing: a blocking caller waits on the invocation's future itself ({@link Pending#direct}); an
     * asynchronous one is continued on the thread that completes the invocation, as the uncoalesced store
     * does, so a lone asynchronous decision keeps the uncoalesced timing too.
     */
    private void sendFirst(Lane lane, Pending p) {
        hops.increment();
        decisions.increment();
        CompletionStage<BatchResult> call;
        try {
            call = KeyCalls.submitToKey(maps.apply(lane.durability), p.request.key(), new StepProcessor(p.request), BatchResult.class);
        } catch (RuntimeException e) {
            call = CompletableFuture.failedFuture(e);
        }
        if (p.callerWaits) {
            p.lane = lane;
            p.direct = call.toCompletableFuture();
        } else {
            call.whenCompleteAsync((result, failure) -> onCallDone(lane, List.of(p), result, failure),
                    KeyCalls.DIRECT);
        }
    }

    /**
     * Ends a hop its caller waited on directly ({@link Pending#direct}), on the caller's thread: sends
     * what queued meanwhile (from here, a user thread, with no hand-off) or idles the lane. Once only.
     */
    void finishDirect(Pending p, Object result, Throwable failure) {
        if (!p.finished.compareAndSet(false, true)) {
            return;
        }
        List<Pending> next = drain(p.lane);
        if (!next.isEmpty()) {
            send(p.lane, next);
        }
        fanOutSafely(List.of(p), result, failure);
    }

    /** The caller of a direct hop stopped waiting: the hop ends when Hazelcast answers. */
    void abandonDirect(Pending p) {
        p.direct.whenCompleteAsync((result, failure) -> {
            Throwable cause = failure == null ? null : Failures.unwrap(failure);
            if (p.finished.compareAndSet(false, true)) {
                onCallDone(p.lane, List.of(p), result, cause);
            }
        }, KeyCalls.DIRECT);
    }

    /**
     * Sends {@code batch} (not empty); the lane counts it as one hop in flight until every part is back.
     * One key: one {@code submitToKey} (a {@link StepProcessor} for one request, else a
     * {@link BatchProcessor}). At least {@link #MIN_KEYS_PER_MULTI_KEY_HOP} keys: one {@code submitToKeys}.
     * In between, one {@code submitToKey} per key, all at once: a multi-key operation costs one partition
     * operation and one backup operation per partition anyway, plus fixed overheads that only pay off
     * once there are enough keys.
     */
    private void send(Lane lane, List<Pending> batch) {
        decisions.add(batch.size());
        Map<String, List<Pending>> byKey = new LinkedHashMap<>();
        for (Pending p : batch) {
            byKey.computeIfAbsent(p.request.key(), k -> new ArrayList<>()).add(p);
        }
        IMap<String, long[]> map;
        try {
            map = maps.apply(lane.durability);
        } catch (RuntimeException e) {
            hops.increment();
            onCallDone(lane, batch, null, e);
            return;
        }
        if (byKey.size() >= MIN_KEYS_PER_MULTI_KEY_HOP) {
            hops.increment();
            multiKeyHops.increment();
            CompletionStage<?> call;
            try {
                BatchProcessor processor = new BatchProcessor(requests(byKey));
                call = map.submitToKeys(processor.keys(), processor);
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            call.whenCompleteAsync((result, failure) -> onCallDone(lane, batch, result, failure),
                    KeyCalls.DIRECT);
            return;
        }
        AtomicInteger parts = new AtomicInteger(byKey.size());
        for (List<Pending> group : byKey.values()) {
            hops.increment();
            CompletionStage<?> call;
            try {
                String key = group.get(0).request.key();
                call = group.size() == 1 ? KeyCalls.submitToKey(map, key, new StepProcessor(group.get(0).request), BatchResult.class)
                        : KeyCalls.submitToKey(map, key, new BatchProcessor(Map.of(key, requests(group))), BatchResult.class);
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            call.whenCompleteAsync((result, failure) -> {
                if (parts.decrementAndGet() == 0) {
                    onCallDone(lane, group, result, failure); // the last part frees the lane
                } else {
                    fanOutSafely(group, result, failure);
                }
            }, KeyCalls.DIRECT);
        }
    }

    private static List<StepRequest> requests(List<Pending> group) {
        List<StepRequest> list = new ArrayList<>(group.size());
        for (Pending p : group) {
            list.add(p.request);
        }
        return list;
    }

    private static Map<String, List<StepRequest>> requests(Map<String, List<Pending>> byKey) {
        Map<String, List<StepRequest>> map = new LinkedHashMap<>();
        byKey.forEach((key, group) -> map.put(key, requests(group)));
        return map;
    }

    /**
     * Runs on the thread that completed the invocation (a Hazelcast response or partition thread), so only
     * cheap work happens here. First the lane: what queued meanwhile is taken (its sending moves to the
     * store's executor), or, when nothing did, the lane goes idle before any caller hears back, so a
     * caller that asks again at once is sent at once rather than queued. Then the callers' futures
     * complete (the runtime continues them on the store's executor, never here). A lone caller thus
     * pays no thread hop.
     */
    private void onCallDone(Lane lane, List<Pending> batch, Object result, Throwable failure) {
        List<Pending> next = drain(lane);
        if (!next.isEmpty()) {
            try {
                executor.execute(() -> send(lane, next));
            } catch (RejectedExecutionException closed) {
                send(lane, next);
            }
        }
        fanOutSafely(batch, result, failure);
    }

    private void fanOutSafely(List<Pending> batch, Object result, Throwable failure) {
        try {
            fanOut(batch, result, failure);
        } catch (RuntimeException unexpected) { // an answer of the wrong shape: fail its callers, go on
            batch.forEach(p -> p.future.completeExceptionally(new HazelcastException(
                    "unexpected answer from the partition owner: " + unexpected, unexpected)));
        }
    }

    /**
     * Takes what queued while the lane was busy, within the batch bounds, dropping requests whose future is
     * done or whose deadline passed; when nothing is left to send, marks the lane idle.
     */
    private List<Pending> drain(Lane lane) {
        List<Pending> batch;
        List<Pending> expired = new ArrayList<>();
        synchronized (lane) {
            long now = System.nanoTime();
            batch = take(lane, now, expired);
            if (batch.isEmpty()) {
                lane.inFlight--; // this hop's slot is released
            } else {
                lane.lastSendNanos = now; // this hop's slot passes to the next batch
            }
        }
        expire(expired);
        return batch;
    }

    /** Takes the next batch from the head of the queue; holds the lane's lock. */
    private List<Pending> take(Lane lane, long now, List<Pending> expired) {
        List<Pending> batch = new ArrayList<>();
        int bytes = 0;
        while (!lane.queue.isEmpty() && batch.size() < maxBatchRequests) {
            Pending p = lane.queue.peek();
            if (p.future.isDone()) {
                lane.queue.poll();
                dropped.increment();
                continue;
            }
            if (p.deadline != Long.MAX_VALUE && now - p.deadline >= 0) {
                lane.queue.poll();
                expired.add(p);
                continue;
            }
            if (!batch.isEmpty() && bytes + p.bytes() > maxBatchBytes) {
                break;
            }
            lane.queue.poll();
            bytes += p.bytes();
            batch.add(p);
        }
        return batch;
    }

    private void expire(List<Pending> expired) {
        for (Pending p : expired) {
            dropped.increment();
            p.future.completeExceptionally(new TimeoutException("the decision's deadline passed before it was sent"));
        }
    }

    private void fanOut(List<Pending> batch, Object result, Throwable failure) {
        if (failure != null) {
            Throwable t = translate.apply(failure);
            for (Pending p : batch) {
                p.future.completeExceptionally(t);
            }
            return;
        }
        if (batch.size() == 1) {
            Pending p = batch.get(0);
            complete(List.of(p), (BatchResult) result);
            return;
        }
        Map<String, List<Pending>> byKey = new LinkedHashMap<>();
        for (Pending p : batch) {
            byKey.computeIfAbsent(p.request.key(), k -> new ArrayList<>()).add(p);
        }
        if (result instanceof BatchResult single) {
            complete(byKey.values().iterator().next(), single);
            return;
        }
        @SuppressWarnings("unchecked")
        Map<String, BatchResult> results = (Map<String, BatchResult>) result;
        byKey.forEach((key, pendings) -> complete(pendings, results == null ? null : results.get(key)));
    }

    /** Hands each caller its own outcome, in the order they were decided. */
    private static void complete(List<Pending> pendings, BatchResult result) {
        if (result == null || result.size() != pendings.size()) {
            IllegalStateException e = new IllegalStateException("the partition owner answered "
                    + (result == null ? "nothing" : result.size() + " outcomes") + " for " + pendings.size()
                    + " requests; do members and clients run the same Sluice version?");
            pendings.forEach(p -> p.future.completeExceptionally(new HazelcastException(e.getMessage(), e)));
            return;
        }
        for (int i = 0; i < pendings.size(); i++) {
            RuntimeException failure = result.failure(i);
            if (failure == null) {
                pendings.get(i).future.complete(result.verdict(i));
            } else {
                pendings.get(i).future.completeExceptionally(failure);
            }
        }
    }

    /** Requests waiting in every lane (not those in flight). */
    int queued() {
        int n = 0;
        for (Lane lane : lanes.values()) {
            synchronized (lane) {
                n += lane.queue.size();
            }
        }
        return n;
    }

    @Override
    public String toString() {
        return "Coalescer[maxBatchRequests=" + maxBatchRequests + ", maxBatchBytes=" + maxBatchBytes
                + ", maxQueuedPerPartition=" + maxQueued + ", stallMillis=" + TimeUnit.NANOSECONDS.toMillis(stallNanos)
                + "]";
    }
}
