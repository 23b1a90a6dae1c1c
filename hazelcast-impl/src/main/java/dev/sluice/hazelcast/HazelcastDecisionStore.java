package dev.sluice.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastException;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.partition.Partition;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.spi.DecisionStore;
import dev.sluice.limiter.spi.StepRequest;
import dev.sluice.limiter.algorithm.Verdict;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs each step as a {@link StepProcessor} on the key's partition owner, in the map chosen by the
 * request's durability.
 *
 * <p>Waiting: both paths start the invocation through {@link KeyCalls}. {@link #execute} waits for it
 * with the caller's deadline (a client call is not cut short by Hazelcast's invocation timeout);
 * {@link #submit} does no more than convert the verdict on the thread that completes it (see
 * {@link KeyCalls#DIRECT}). Both hand the caller's deadline to the coalescer, which drops a request whose caller
 * gave up before it was sent.
 *
 * <p>Coalescing ({@link HazelcastCoalescing}, on unless disabled): decisions go through a
 * {@link Coalescer}, which sends a lone decision at once as one invocation and batches the rest per
 * partition.
 *
 * <p>Failures are translated and classified by {@link Failures}.
 */
final class HazelcastDecisionStore implements DecisionStore {
    private final HazelcastInstance instance;
    private final String mapName;
    private volatile IMap<String, long[]> replicated;
    private volatile IMap<String, long[]> ephemeral;

    private final ExecutorService callbacks;
    /** Null when coalescing is off. */
    private final Coalescer coalescer;

    HazelcastDecisionStore(HazelcastInstance instance, String mapName) {
        this(instance, mapName, HazelcastCoalescing.disabled());
    }

    HazelcastDecisionStore(HazelcastInstance instance, String mapName, HazelcastCoalescing coalescing) {
        this.instance = instance;
        this.mapName = mapName;
        int id = STORES.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        this.callbacks = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
            Thread t = new Thread(r, "sluice-hazelcast-" + id + "-callback-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.coalescer = coalescing.enabled()
                ? new Coalescer(instance, this::map, Failures::translate, callbacks, coalescing) : null;
    }

    /** The coalescer, or null when coalescing is off (tests read its counters). */
    Coalescer coalescer() {
        return coalescer;
    }

    private static final AtomicInteger STORES = new AtomicInteger();

    /**
     * Hazelcast completes futures on partition and response threads, which must never block: callers'
     * callbacks run on this store's own small pool instead (never the common pool).
     */
    @Override
    public Executor callbackExecutor() {
        return callbacks;
    }

    @Override
    public void close() {
        callbacks.shutdown();
    }

    /**
     * The map for a request's durability. Looked up on first use, not at creation: a client started
     * with {@code asyncStart} cannot create a map proxy while it is offline, and that must fail one
     * decision (which then follows its failure mode), not the creation of the limiters.
     */
    private IMap<String, long[]> map(Durability durability) {
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

    private IMap<String, long[]> map(StepRequest request) {
        return map(request.durability());
    }

    @Override
    public CompletableFuture<Verdict> submit(StepRequest request) {
        return submit(request, Long.MAX_VALUE);
    }

    /**
     * Coalesced, a request still queued when its future is cancelled or its deadline passes is never sent;
     * uncoalesced, every request is sent at once, so the deadline has nothing left to drop.
     */
    @Override
    public CompletableFuture<Verdict> submit(StepRequest request, long deadlineNanos) {
        if (coalescer != null) {
            return coalescer.submit(request, deadlineNanos);
        }
        CompletionStage<BatchResult> call;
        try {
            call = KeyCalls.submitToKey(map(request), request.key(), new StepProcessor(request), BatchResult.class);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(Failures.translate(e));
        }
        CompletableFuture<Verdict> result = new CompletableFuture<>();
        call.whenCompleteAsync((wire, failure) -> {
            if (failure == null && wire.failure(0) == null) {
                result.complete(wire.verdict(0));
            } else if (failure == null) {
                result.completeExceptionally(wire.failure(0));
            } else {
                result.completeExceptionally(Failures.translate(failure));
            }
        }, KeyCalls.DIRECT); // the runtime then continues on callbackExecutor(), never on Hazelcast's thread
        return result;
    }

    @Override
    public Verdict execute(StepRequest request, long timeoutNanos)
            throws TimeoutException, ExecutionException, InterruptedException {
        if (coalescer != null) {
            return executeCoalesced(request, timeoutNanos);
        }
        // KeyCalls, not submitToKey(...).get(timeout), whose future starts a thread per call on 2 cores,
        // nor executeOnKey, which cannot be cut short at the caller's deadline (and measured slower).
        CompletableFuture<BatchResult> call;
        try {
            call = KeyCalls.submitToKey(map(request), request.key(), new StepProcessor(request), BatchResult.class);
        } catch (RuntimeException e) {
            throw new ExecutionException(Failures.translate(e));
        }
        try {
            return verdictOf(call.get(timeoutNanos, TimeUnit.NANOSECONDS));
        } catch (ExecutionException e) {
            throw new ExecutionException(Failures.translate(e)); // translate unwraps
        }
    }

    /**
     * Waits for a coalesced decision; when the caller gives up (time out, interrupt) the request is
     * cancelled, so if it still waits in a queue it is never sent.
     */
    private Verdict executeCoalesced(StepRequest request, long timeoutNanos)
            throws TimeoutException, ExecutionException, InterruptedException {
        Coalescer.Pending p = coalescer.enqueue(request, System.nanoTime() + timeoutNanos, true);
        CompletableFuture<?> direct = p.direct;
        if (direct == null) { // queued: the hop that carries it completes p.future
            try {
                return p.future.get(timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (TimeoutException | InterruptedException e) {
                p.future.cancel(false);
                throw e;
            }
        }
        // Sent alone at once: wait on Hazelcast's own future, as without coalescing, then end the hop here.
        Object result;
        try {
            result = direct.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException | InterruptedException e) {
            coalescer.abandonDirect(p);
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            coalescer.finishDirect(p, null, cause);
            throw new ExecutionException(Failures.translate(cause));
        } catch (RuntimeException e) {
            coalescer.finishDirect(p, null, e);
            throw new ExecutionException(Failures.translate(e));
        }
        coalescer.finishDirect(p, result, null);
        return verdictOf((BatchResult) result);
    }

    private static Verdict verdictOf(BatchResult result) throws ExecutionException {
        if (result.failure(0) != null) {
            throw new ExecutionException(result.failure(0));
        }
        return result.verdict(0);
    }

    @Override
    public boolean isRetryable(Throwable failure) {
        return Failures.isRetryable(failure);
    }

    /**
     * Proves that this instance and every member can read Sluice's classes: a local serialization round
     * trip, then one {@link ProbeProcessor} per member (on a key that member owns).
     *
     * @throws IllegalStateException naming what to install where
     */
    void checkClasspath(long timeoutMillis) {
        boolean client = !(instance.getLocalEndpoint() instanceof Member);
        if (instance instanceof SerializationServiceSupport support) {
            try {
                var ss = support.getSerializationService();
                ss.toObject(ss.toData(BatchResult.of(Verdict.of(true, 0, 1, -1, 0, 0))));
            } catch (RuntimeException e) {
                throw new IllegalStateException("this Hazelcast " + (client ? "client" : "member")
                        + " has no Sluice serialization factory (" + e.getMessage() + "): create it from "
                        + (client ? "SluiceHazelcast.configure(clientConfig)" : "SluiceHazelcast.configure(config)")
                        + ", or register " + SluiceSerializerFactory.class.getName() + " under factory id "
                        + SluiceSerializerFactory.factoryId() + " in its serialization config", e);
            }
        }
        List<CompletableFuture<BatchResult>> probes = new ArrayList<>();
        try {
            for (String key : probeKeys()) {
                probes.add(map(Durability.REPLICATED).submitToKey(key, new ProbeProcessor()).toCompletableFuture());
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            for (CompletableFuture<BatchResult> probe : probes) {
                probe.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | RuntimeException | TimeoutException e) {
            Throwable cause = Failures.unwrap(e);
            if (Failures.isSerializationProblem(cause)) {
                throw new IllegalStateException(Failures.missingClassesMessage(cause.getMessage()), cause);
            }
            // Unreachable or slow cluster: nothing proven either way. Decisions will fail, retry and follow
            // the limiters' failure mode; a missing class then still surfaces as an IllegalStateException.
        }
    }

    /** One key owned by each member, as far as the partition table is known now. */
    private List<String> probeKeys() {
        Set<Member> members = new HashSet<>(instance.getCluster().getMembers());
        Set<Member> covered = new HashSet<>();
        List<String> keys = new ArrayList<>();
        String base = "sluice-probe-" + UUID.randomUUID() + "-";
        for (int i = 0; i < 4096 && covered.size() < members.size(); i++) {
            String key = base + i;
            Partition partition = instance.getPartitionService().getPartition(key);
            Member owner = partition.getOwner();
            if (owner == null) {
                if (keys.isEmpty()) {
                    keys.add(key);
                }
                continue;
            }
            if (covered.add(owner)) {
                keys.add(key);
            }
        }
        return keys;
    }

    @Override
    public String toString() {
        return "Hazelcast store (" + (coalescer == null ? "no coalescing" : coalescer) + ", maps " + mapName + ", " + SluiceHazelcast.ephemeralMapName(mapName) + " on "
                + instance.getName() + ")";
    }
}
