package dev.sluice.hazelcast;

import dev.sluice.limiter.store.FutureFailures;
import com.hazelcast.cluster.InitialMembershipEvent;
import com.hazelcast.cluster.InitialMembershipListener;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.LocalMapStats;
import com.hazelcast.partition.Partition;
import com.hazelcast.query.Predicates;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.StoreStatistics;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.DecisionStore;
import dev.sluice.limiter.store.StepRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The Hazelcast backend's {@link DecisionStore}: a call runs its requests on the key's partition owner as one
 * {@link StepProcessor}, in the map chosen by the requests' durability, through {@link HazelcastInternals.Calls}
 * (the runtime's {@link dev.sluice.limiter.store.Coalescer} decides what goes together). Failures are translated
 * and classified by {@link Failures}. When limiters are created it proves that this instance and every member run
 * a supported Hazelcast and can read Sluice's classes ({@link #checkClasspath}).
 *
 * <p>Hazelcast completes futures on partition and response threads, which must never block: callers' callbacks
 * run on this store's {@linkplain #callbackExecutor callback executor} instead, Sluice's own small pool of daemon
 * threads unless the user supplied one; {@link #close()} shuts down only Sluice's own.
 */
final class HazelcastDecisionStore implements DecisionStore {
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final HazelcastInstance instance;
    private final String mapName;
    /** Each durability's map by ordinal, looked up on first use ({@link #map}). */
    private final AtomicReferenceArray<IMap<String, long[]>> maps =
            new AtomicReferenceArray<>(Durability.values().length);
    private final Executor callbacks;
    /** The pool Sluice created for {@link #callbacks}, or {@code null} when the user supplied it. */
    private final ExecutorService ownPool;
    private final HazelcastInternals.Calls calls;
    /** On a member: the members of its cluster as its membership listener last saw them; -1 on a client. */
    private final AtomicInteger members = new AtomicInteger(-1);
    /** Whether {@link #members()} was asked once, so the listener is registered (or this is a client). */
    private volatile boolean countingMembers;
    /** The membership listener's registration on a member, or {@code null}. */
    private UUID membershipListener;

    /** @param callbacks the user's executor, or {@code null} for a pool of Sluice's own */
    HazelcastDecisionStore(HazelcastInstance instance, String mapName, Executor callbacks) {
        this(instance, mapName, callbacks, HazelcastInternals.forInstance(instance));
        MemberCapacity.checkTable(instance);
    }

    /** @param calls how invocations start: {@link HazelcastInternals#publicOnly} tests the fallback */
    HazelcastDecisionStore(HazelcastInstance instance, String mapName, Executor callbacks,
            HazelcastInternals.Calls calls) {
        this.instance = instance;
        this.mapName = mapName;
        this.ownPool = callbacks == null ? newPool() : null;
        this.callbacks = callbacks == null ? ownPool : callbacks;
        this.calls = calls;
    }

    /** Keeps {@link #members} at the cluster's size. */
    private final class MemberCount implements InitialMembershipListener {
        @Override
        public void init(InitialMembershipEvent event) {
            members.set(event.getMembers().size());
        }

        @Override
        public void memberAdded(MembershipEvent event) {
            members.set(event.getMembers().size());
        }

        @Override
        public void memberRemoved(MembershipEvent event) {
            members.set(event.getMembers().size());
        }
    }

    /**
     * On an embedded member, the members of its cluster now; -1 on a client, which cannot count the replicas. The
     * first call registers the membership listener that keeps the count, so only limiters that ask for it (failure
     * mode local) pay for one.
     */
    @Override
    public int members() {
        if (!countingMembers) {
            startCountingMembers();
        }
        return members.get();
    }

    /**
     * Each embedded member is a replica of the application (a member that is not, a lite or data-only one, is
     * counted too, which only makes a local share smaller); a client sees the cluster's members, which are not the
     * application's replicas, so it claims no count.
     */
    private synchronized void startCountingMembers() {
        if (countingMembers) {
            return;
        }
        if (instance.getLocalEndpoint() instanceof Member) {
            membershipListener = instance.getCluster().addMembershipListener(new MemberCount());
            members.compareAndSet(-1, instance.getCluster().getMembers().size());
        }
        countingMembers = true;
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

    /**
     * One {@code submitToKey} of one {@link StepProcessor} carrying every request. Its future completes on a
     * Hazelcast thread; a call that cannot start fails its future, never throws, so no caller is left waiting.
     */
    @Override
    public CompletableFuture<BatchResult> run(List<StepRequest> requests) {
        StepRequest first = requests.get(0);
        try {
            IMap<String, long[]> map = map(first.durability());
            StepProcessor processor = requests.size() == 1
                    ? new StepProcessor(map.getName(), first)
                    : new StepProcessor(map.getName(), requests);
            return calls.submitToKey(map, first.key(), processor, BatchResult.class, callbacks);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        } catch (LinkageError e) { // a call that cannot start must fail its callers and free its lane, never wedge it
            return CompletableFuture.failedFuture(new SupportedVersions.Unlinked(e));
        }
    }

    @Override
    public Throwable translate(Throwable failure) {
        return Failures.translate(failure);
    }

    /** How this store starts invocations. */
    HazelcastInternals.Calls calls() {
        return calls;
    }

    /** The name of the map of replicated limiters. */
    String mapName() {
        return mapName;
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

    @Override
    public Executor callbackExecutor() {
        return callbacks;
    }

    /** Shuts down the callback pool if Sluice created it; a user's executor is left alone. */
    @Override
    public void close() {
        if (ownPool != null) {
            ownPool.shutdown();
        }
        UUID listener;
        synchronized (this) {
            listener = membershipListener;
        }
        if (listener != null) {
            try {
                instance.getCluster().removeMembershipListener(listener);
            } catch (RuntimeException shutDown) {
                // the member is already gone, and its listeners with it
            }
        }
    }

    /**
     * In a map of its own ({@code <map>-settings}, Hazelcast's default map configuration: one backup, no expiry,
     * no eviction), so the decision maps hold decisions only and every member and client reads the same value.
     */
    @Override
    public long[] putIfAbsent(String key, long[] words) {
        long[] held = instance.<String, long[]>getMap(mapName + "-settings").putIfAbsent(key, words);
        return held != null ? held : words;
    }

    /**
     * On a member: the owned entries whose state has not expired (cells included), the bound, the evictions and the
     * live overflow cells of the three maps on this member (a member of a larger cluster sees its own share); on a
     * client nothing: the runtime counts
     * the capacity refusals and overflow decisions this process received.
     */
    @Override
    public StoreStatistics statistics() {
        if (!(instance.getLocalEndpoint() instanceof Member)) {
            return StoreStatistics.UNKNOWN;
        }
        long keys = 0;
        long evictions = 0;
        long maxKeys = 0;
        long cells = 0;
        long now = StepProcessor.now(instance);
        for (Durability durability : Durability.values()) {
            LocalMapStats stats = map(durability).getLocalMapStats();
            // Scans of the member's own keys: statistics are read now and then, never on a decision's path. An
            // entry whose state has expired is no key (the sweep removes it in its time).
            ExpiredEntries expired = new ExpiredEntries(now);
            keys += stats.getOwnedEntryCount() - map(durability).localKeySet(expired).size();
            evictions += stats.getEvictionCount();
            cells += map(durability).localKeySet(Predicates.and(Predicates.like("__key",
                    Overflow.cellKeyPrefix() + "%"), Predicates.not(expired))).size();
            long max = SluiceHazelcast.maxKeys(instance.getConfig(), SluiceHazelcast.mapName(mapName, durability));
            maxKeys = maxKeys < 0 || max < 0 ? -1 : maxKeys + max;
        }
        return new StoreStatistics(keys, maxKeys, evictions, -1, -1, -1, cells);
    }

    @Override
    public boolean isRetryable(Throwable failure) {
        return Failures.isRetryable(failure);
    }

    /**
     * Proves that this instance and every member run a supported Hazelcast ({@link SupportedVersions}) and
     * can read Sluice's classes: a local serialization round trip, then one {@link ProbeProcessor} per member
     * (on a key that member owns).
     *
     * @throws IllegalStateException naming the unsupported version, or what to install where
     */
    void checkClasspath(long timeoutMillis) {
        boolean client = !(instance.getLocalEndpoint() instanceof Member);
        SupportedVersions.checkLocal(client);
        try {
            calls.roundTrip(BatchResult.of(Verdict.of(true, 0, 1, -1, 0, 0)));
        } catch (RuntimeException e) {
            throw new IllegalStateException("this Hazelcast " + (client ? "client" : "member")
                    + " has no Sluice serialization factory (" + e.getMessage() + "): create it from "
                    + (client ? "SluiceHazelcast.configure(clientConfig)" : "SluiceHazelcast.configure(config)")
                    + ", or register " + SluiceSerializerFactory.class.getName() + " under factory id "
                    + SluiceSerializerFactory.factoryId() + " in its serialization config", e);
        }
        if (client) {
            awaitFirstConnection(Math.min(timeoutMillis, FIRST_CONNECTION_WAIT_MILLIS));
        }
        SupportedVersions.checkMembers(instance);
        List<CompletableFuture<BatchResult>> probes = new ArrayList<>();
        try {
            for (String key : probeKeys()) {
                // through the path decisions take, so an internal path that fails here falls back before any decision
                probes.add(calls.submitToKey(map(Durability.REPLICATED), key, new ProbeProcessor(), BatchResult.class,
                        callbacks));
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            for (CompletableFuture<BatchResult> probe : probes) {
                probe.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | RuntimeException | TimeoutException e) {
            Throwable cause = FutureFailures.unwrap(e);
            if (Failures.isSerializationProblem(cause)) {
                throw new IllegalStateException(Failures.missingClassesMessage(cause.getMessage()), cause);
            }
            // Unreachable or slow cluster: nothing proven either way. Decisions will fail, retry and follow
            // the limiters' failure mode; a missing class then still surfaces as an IllegalStateException.
        }
    }

    /** How long {@link #checkClasspath} waits for an asynchronously started client to reach the cluster. */
    static final long FIRST_CONNECTION_WAIT_MILLIS = 5_000;

    /**
     * A client started asynchronously ({@link SluiceHazelcast#failFast}) returns before it has connected; its
     * first member list says it has. Waiting for it, briefly, lets the members be checked now and spares the
     * first decisions a failure for a connection that is still being made; a cluster that is not reachable in
     * that time is left to the decisions' failure mode.
     */
    private void awaitFirstConnection(long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (instance.getCluster().getMembers().isEmpty() && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
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
        return "Hazelcast store (maps " + mapName + ", " + SluiceHazelcast.ephemeralMapName(mapName) + ", "
                + SluiceHazelcast.asyncBackupMapName(mapName) + " on " + instance.getName() + ")";
    }
}
