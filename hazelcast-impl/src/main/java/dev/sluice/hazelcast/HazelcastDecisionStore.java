package dev.sluice.hazelcast;

import com.hazelcast.client.HazelcastClientOfflineException;
import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastException;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IndeterminateOperationStateException;
import com.hazelcast.core.OperationTimeoutException;
import com.hazelcast.map.IMap;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import com.hazelcast.partition.Partition;
import com.hazelcast.spi.exception.RetryableException;
import com.hazelcast.spi.exception.TargetDisconnectedException;
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
import java.util.concurrent.CompletionException;
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
 * {@link #DIRECT}). Both hand the caller's deadline to the coalescer, which drops a request whose caller
 * gave up before it was sent.
 *
 * <p>Coalescing ({@link HazelcastCoalescing}, on unless disabled): decisions go through a
 * {@link Coalescer}, which sends a lone decision at once as one invocation and batches the rest per
 * partition.
 *
 * <p>Failures: Hazelcast's transient failures (a member left, a lost connection, a client offline, a
 * migrating partition, an operation timeout) are retryable. Hazelcast delivers a step at least once, so a
 * retried rate step that did run charges its permits twice: a limiter may then refuse a little early,
 * never admit more than its limit. A concurrency acquisition is idempotent: its retry carries the same
 * nonce and is answered with the lease the first run granted. Hazelcast's own
 * {@link IllegalStateException}s (a client offline, an instance shut down) are wrapped in a
 * {@link HazelcastException}, since the runtime treats a plain {@code IllegalStateException} as a usage
 * error; a member that cannot read Sluice's classes becomes an {@code IllegalStateException} that says
 * what to install, which no failure mode hides.
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
                ? new Coalescer(instance, this::map, this::translate, callbacks, coalescing) : null;
    }

    /** The coalescer, or null when coalescing is off (tests read its counters). */
    Coalescer coalescer() {
        return coalescer;
    }

    private static final AtomicInteger STORES = new AtomicInteger();

    /**
     * Runs a continuation on the thread that completes a Hazelcast future. Hazelcast's own non-async
     * {@code whenComplete} does not: its futures run it on {@code ConcurrencyUtil}'s default async
     * executor, which is the common pool, or, when the common pool's parallelism is 1 (2 cores), a new
     * thread per continuation (and {@code submitToKey}'s future does so even with no continuation; see
     * {@link KeyCalls}). Every continuation here is a few field writes; the runtime hops to
     * {@link #callbackExecutor()} before any caller code runs.
     */
    static final Executor DIRECT = Runnable::run;

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
        CompletionStage<WireVerdict> call;
        try {
            call = KeyCalls.submitToKey(map(request), request.key(), new StepProcessor(request));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(translate(e));
        }
        CompletableFuture<Verdict> result = new CompletableFuture<>();
        call.whenCompleteAsync((wire, failure) -> {
            if (failure == null) {
                result.complete(wire.toVerdict());
            } else {
                result.completeExceptionally(translate(failure));
            }
        }, DIRECT); // the runtime then continues on callbackExecutor(), never on Hazelcast's thread
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
        CompletableFuture<WireVerdict> call;
        try {
            call = KeyCalls.submitToKey(map(request), request.key(), new StepProcessor(request));
        } catch (RuntimeException e) {
            throw new ExecutionException(translate(e));
        }
        try {
            return call.get(timeoutNanos, TimeUnit.NANOSECONDS).toVerdict();
        } catch (ExecutionException e) {
            throw new ExecutionException(translate(e)); // translate unwraps
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
            throw new ExecutionException(translate(cause));
        } catch (RuntimeException e) {
            coalescer.finishDirect(p, null, e);
            throw new ExecutionException(translate(e));
        }
        coalescer.finishDirect(p, result, null);
        return ((WireVerdict) result).toVerdict();
    }

    @Override
    public boolean isRetryable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof RetryableException || t instanceof TargetDisconnectedException
                    || t instanceof HazelcastClientOfflineException || t instanceof OperationTimeoutException
                    || t instanceof IndeterminateOperationStateException) {
                return true;
            }
        }
        return false;
    }

    /** Maps a Hazelcast failure onto what the runtime understands; see the class comment. */
    Throwable translate(Throwable failure) {
        Throwable t = failure;
        while ((t.getClass() == CompletionException.class || t.getClass() == ExecutionException.class)
                && t.getCause() != null) {
            t = t.getCause();
        }
        if (isSerializationProblem(t)) {
            return new IllegalStateException(missingClassesMessage(t.getMessage()), t);
        }
        if ((t instanceof IllegalStateException || t instanceof IllegalArgumentException)
                && t.getClass().getName().startsWith("com.hazelcast.")) {
            return new HazelcastException("Hazelcast could not run the decision: " + t, t);
        }
        return t;
    }

    static boolean isSerializationProblem(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HazelcastSerializationException || t instanceof ClassNotFoundException
                    || t instanceof NoClassDefFoundError) {
                return true;
            }
        }
        return false;
    }

    /** What to install where, for a member (or client) that cannot read Sluice's classes. */
    static String missingClassesMessage(String detail) {
        int id = SluiceSerializerFactory.factoryId();
        return "the Hazelcast cluster cannot run Sluice's entry processors (" + detail + "). Every member needs"
                + " the jars dev.sluice:hazelcast-impl and dev.sluice:limiter-api (the same version as this"
                + " application) on its classpath and Sluice's serialization factory registered: call"
                + " SluiceHazelcast.configure(config) on embedded members, or start members with"
                + " 'java -cp hazelcast.jar:hazelcast-impl.jar:limiter-api.jar dev.sluice.hazelcast.SluiceMember',"
                + " or add to hazelcast.yaml: serialization: data-serializable-factories: [{factory-id: " + id
                + ", class-name: " + SluiceSerializerFactory.class.getName() + "}] (in the Hazelcast Docker image,"
                + " put the jars in /opt/hazelcast/ext/). Clients need SluiceHazelcast.configure(clientConfig).";
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
                ss.toObject(ss.toData(new WireVerdict(Verdict.of(true, 0, 1, -1, 0, 0))));
            } catch (RuntimeException e) {
                throw new IllegalStateException("this Hazelcast " + (client ? "client" : "member")
                        + " has no Sluice serialization factory (" + e.getMessage() + "): create it from "
                        + (client ? "SluiceHazelcast.configure(clientConfig)" : "SluiceHazelcast.configure(config)")
                        + ", or register " + SluiceSerializerFactory.class.getName() + " under factory id "
                        + SluiceSerializerFactory.factoryId() + " in its serialization config", e);
            }
        }
        List<CompletableFuture<WireVerdict>> probes = new ArrayList<>();
        try {
            for (String key : probeKeys()) {
                probes.add(map(Durability.REPLICATED).submitToKey(key, new ProbeProcessor()).toCompletableFuture());
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            for (CompletableFuture<WireVerdict> probe : probes) {
                probe.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | RuntimeException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (isSerializationProblem(cause)) {
                throw new IllegalStateException(missingClassesMessage(cause.getMessage()), cause);
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
