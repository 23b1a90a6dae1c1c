package dev.sluice.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.Partition;
import com.hazelcast.map.LocalMapStats;
import com.hazelcast.query.Predicates;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.StoreStatistics;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.spi.DecisionStore;
import dev.sluice.limiter.spi.StepRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Hazelcast backend's {@link DecisionStore}: every step runs on the key's partition owner, in the map
 * chosen by the request's durability, sent by its {@link Sender} (coalesced as {@link HazelcastCoalescing}
 * says). Failures are translated and classified by {@link Failures}. When limiters are created it proves
 * that this instance and every member run a supported Hazelcast and can read Sluice's classes
 * ({@link #checkClasspath}).
 */
final class HazelcastDecisionStore implements DecisionStore {
    private final HazelcastInstance instance;
    private final Sender sender;

    /** A store whose callbacks run on a small pool of Sluice's own. */
    HazelcastDecisionStore(HazelcastInstance instance, String mapName, HazelcastCoalescing coalescing) {
        MemberCapacity.checkTable(instance);
        this.instance = instance;
        this.sender = new Sender(instance, mapName, coalescing, null);
    }

    /** A store whose callbacks run on the user's {@code callbacks}, which it never shuts down. */
    HazelcastDecisionStore(HazelcastInstance instance, String mapName, HazelcastCoalescing coalescing,
            Executor callbacks) {
        MemberCapacity.checkTable(instance);
        this.instance = instance;
        this.sender = new Sender(instance, mapName, coalescing, callbacks);
    }

    /** The sender (tests read its counters). */
    Sender sender() {
        return sender;
    }

    /**
     * Hazelcast completes futures on partition and response threads, which must never block: callers'
     * callbacks run on the sender's executor instead (Sluice's own small pool, or the user's; never the
     * common pool).
     */
    @Override
    public Executor callbackExecutor() {
        return sender.callbacks();
    }

    @Override
    public void close() {
        sender.close();
    }

    /**
     * In a map of its own ({@code <map>-settings}, Hazelcast's default map configuration: one backup, no expiry,
     * no eviction), so the decision maps hold decisions only and every member and client reads the same value.
     */
    @Override
    public long[] putIfAbsent(String key, long[] words) {
        long[] held = instance.<String, long[]>getMap(sender.mapName() + "-settings").putIfAbsent(key, words);
        return held != null ? held : words;
    }

    @Override
    public CompletableFuture<Verdict> submit(StepRequest request) {
        return submit(request, Long.MAX_VALUE);
    }

    /** A request still queued when its future is cancelled or its deadline passes is never sent. */
    @Override
    public CompletableFuture<Verdict> submit(StepRequest request, long deadlineNanos) {
        return sender.submit(request, deadlineNanos);
    }

    @Override
    public Verdict execute(StepRequest request, long timeoutNanos)
            throws TimeoutException, ExecutionException, InterruptedException {
        return sender.execute(request, timeoutNanos);
    }

    /**
     * On a member: the owned entries (cells included), the bound, the evictions and the overflow cells of the three
     * maps on this member (a member of a larger cluster sees its own share); on a client, only the capacity refusals
     * and overflow decisions this process received.
     */
    @Override
    public StoreStatistics statistics() {
        long refusals = sender.capacityRefusals.sum();
        if (!(instance.getLocalEndpoint() instanceof Member)) {
            return new StoreStatistics(-1, -1, -1, refusals, sender.overflowDecisions.sum(), sender.overflowRefusals.sum(), -1);
        }
        long keys = 0;
        long evictions = 0;
        long maxKeys = 0;
        long cells = 0;
        for (Durability durability : Durability.values()) {
            LocalMapStats stats = sender.map(durability).getLocalMapStats();
            keys += stats.getOwnedEntryCount();
            evictions += stats.getEvictionCount();
            // A scan of the member's own keys: statistics are read now and then, never on a decision's path.
            cells += sender.map(durability).localKeySet(Predicates.like("__key",
                    Overflow.cellKeyPrefix() + "%")).size();
            long max = SluiceHazelcast.maxKeys(instance.getConfig(), SluiceHazelcast.mapName(sender.mapName(), durability));
            maxKeys = maxKeys < 0 || max < 0 ? -1 : maxKeys + max;
        }
        return new StoreStatistics(keys, maxKeys, evictions, refusals, sender.overflowDecisions.sum(),
                sender.overflowRefusals.sum(), cells);
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
            sender.calls().roundTrip(BatchResult.of(Verdict.of(true, 0, 1, -1, 0, 0)));
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
                probes.add(sender.calls().submitToKey(sender.map(Durability.REPLICATED), key, new ProbeProcessor(),
                        BatchResult.class, sender.callbacks()));
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
        return "Hazelcast store (" + sender + ")";
    }
}
