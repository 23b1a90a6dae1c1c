package dev.sluice.hazelcast;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.core.DistributedObject;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleListener;
import com.hazelcast.logging.Logger;
import com.hazelcast.partition.Partition;
import com.hazelcast.query.Predicates;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Removes the entries of Sluice's maps whose state no longer matters, where they live, so that decisions write their
 * entries without a per-entry TTL: Hazelcast keeps a TTL's expiry metadata beside each entry (memory per key) and
 * reads and writes it on every access, on the owner and on the backup.
 *
 * <p>Each member sweeps only the partitions it owns, one partition per task: {@code IMap.removeAll} with a
 * {@linkplain Predicates#partitionPredicate partition predicate} and {@link ExpiredEntries}, which runs on the
 * partition's thread, and whose removals Hazelcast replicates to the backups (the backup evaluates the same
 * predicate, with the same time, on its copy). The tasks of a round visit every partition in turn, one every
 * {@code period / partitions}, so a round takes one period (the member config's property {@value #PERIOD_PROPERTY},
 * {@value #DEFAULT_PERIOD_MILLIS} ms unless set) whatever the entry count, and holds a partition's thread for one scan of that
 * partition's entries. Ownership is read at each task, so after a migration the new owner sweeps what it now owns.
 *
 * <p>The sweep never decides anything: a state it has not removed yet already decides exactly like an absent one
 * ({@link dev.sluice.limiter.algorithm.Algorithms#isExpired}), so its timing cannot change a verdict. It removes only
 * states expired {@value #MARGIN_MILLIS} ms before the owner's time, so a replica or a new owner whose cluster time
 * lags a little never loses a state it would still read as live. What it leaves for a while is memory: the owned
 * entries that {@link MemberCapacity} counts include expired ones until their round, at most a period and the margin
 * after they expire, so more keys may go to cells, never fewer.
 *
 * <p>Mixed versions: each member announces its sweep in the member attribute {@value #ATTRIBUTE}. While any member
 * does not (a Sluice that writes TTLs, which would not understand the predicate on its backups), nobody sweeps and
 * writes keep their TTL ({@link #sweeps}), as before.
 *
 * <p>Installed by {@link SluiceHazelcast#configure(Config, String)} as a listener object, which Hazelcast hands each
 * member it starts from that config; a member's sweep ends when the member stops.
 */
final class ExpirySweep implements LifecycleListener, HazelcastInstanceAware {
    /** Member config property: the period of a round over every partition, in milliseconds. */
    static final String PERIOD_PROPERTY = "sluice.expirySweep.periodMillis";
    static final long DEFAULT_PERIOD_MILLIS = 10_000;
    /** How long past its expiry a state is left alone, against the members' cluster-time offsets. */
    static final long MARGIN_MILLIS = 1_000;
    /** The member attribute that says a member sweeps. */
    static final String ATTRIBUTE = "sluice.expiry-sweep";
    /** Before its member runs, a sweep looks again this often; it gives up on a member that never starts. */
    private static final long WAIT_MILLIS = 100;
    private static final long GIVE_UP_NANOS = TimeUnit.MINUTES.toNanos(10);

    private static final ScheduledThreadPoolExecutor EXECUTOR = executor();

    private final Registry registry;
    /** The members (by instance name, unique in a JVM) that sweep now: Hazelcast may hand the listener a member twice. */
    private final Set<String> sweeping = ConcurrentHashMap.newKeySet();

    private ExpirySweep(Registry registry) {
        this.registry = registry;
    }

    /**
     * Makes the members started from {@code config} sweep {@code mapNames} (with the maps any decision writes on
     * them): once per config, whatever the number of calls.
     */
    static void install(Config config, Collection<String> mapNames) {
        Object existing = config.getUserContext().computeIfAbsent(SluiceHazelcast.SWEEP_KEY, k -> new Registry());
        if (!(existing instanceof Registry registry)) {
            throw new IllegalStateException("the user context entry " + SluiceHazelcast.SWEEP_KEY + " is a "
                    + existing.getClass().getName() + ", not Sluice's expiry sweep");
        }
        registry.maps.addAll(mapNames);
        if (registry.installed.compareAndSet(false, true)) {
            config.addListenerConfig(new ListenerConfig(new ExpirySweep(registry)));
            config.getMemberAttributeConfig().setAttribute(ATTRIBUTE, "1");
        }
    }

    /**
     * Whether a write on {@code instance} leaves out the entry's TTL: on a member whose config installed the sweep,
     * while every member of the cluster sweeps. Otherwise (no instance, a client, a cluster with a member that does
     * not sweep) entries get a TTL, as without a sweep.
     */
    static boolean sweeps(HazelcastInstance instance) {
        return registry(instance) != null;
    }

    /** {@link #sweeps(HazelcastInstance)}, making sure the sweep covers {@code mapName} (a primary's write). */
    static boolean sweeps(HazelcastInstance instance, String mapName) {
        Registry registry = registry(instance);
        if (registry == null) {
            return false;
        }
        if (mapName != null && !registry.maps.contains(mapName)) {
            registry.maps.add(mapName);
        }
        return true;
    }

    private static Registry registry(HazelcastInstance instance) {
        if (instance == null) {
            return null;
        }
        return instance.getUserContext().get(SluiceHazelcast.SWEEP_KEY) instanceof Registry r && r.active ? r : null;
    }

    /** The sweep's figures on the members of {@code config} (tests, measurements). */
    static Registry registry(Map<String, Object> userContext) {
        return userContext.get(SluiceHazelcast.SWEEP_KEY) instanceof Registry r ? r : null;
    }

    /** Hazelcast hands the listener each member it starts from the config, while it builds the member. */
    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        String name = instance.getName();
        if (sweeping.add(name)) {
            new Sweeper(instance, registry, () -> sweeping.remove(name)).next(WAIT_MILLIS);
        }
    }

    /** Nothing: each member's sweep watches its member's lifecycle itself. */
    @Override
    public void stateChanged(LifecycleEvent event) {}

    /** What the members of one config sweep, whether they may, and what they did. */
    static final class Registry {
        final Set<String> maps = ConcurrentHashMap.newKeySet();
        private final AtomicBoolean installed = new AtomicBoolean();
        /** Every member of the cluster sweeps, as last seen; until then, writes leave out their TTL. */
        volatile boolean active = true;
        /** Partitions swept, and the time spent in their removals. */
        final LongAdder partitionsSwept = new LongAdder();
        final LongAdder sweptNanos = new LongAdder();
    }

    /** One member's sweep: a task that reschedules itself until the member stops. */
    private static final class Sweeper implements Runnable {
        private final HazelcastInstance instance;
        private final Registry registry;
        private final long createdAt = System.nanoTime();
        private boolean started;
        private boolean warned;
        private long delayMillis;
        private List<Partition> partitions = List.of();
        private List<String> maps = List.of();
        private String[] anchors = new String[0];
        private int cursor;

        private final Runnable ended;

        Sweeper(HazelcastInstance instance, Registry registry, Runnable ended) {
            this.instance = instance;
            this.registry = registry;
            this.ended = ended;
        }

        void next(long millis) {
            try {
                EXECUTOR.schedule(this, millis, TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                // the JVM is shutting down
            }
        }

        @Override
        public void run() {
            boolean running;
            try {
                running = instance.getLifecycleService().isRunning();
            } catch (RuntimeException e) {
                running = false; // still being built
            }
            if (!running) {
                if (!started && System.nanoTime() - createdAt < GIVE_UP_NANOS) {
                    next(WAIT_MILLIS);
                } else {
                    ended.run(); // stopped: the sweep ends with its member
                }
                return;
            }
            try {
                if (!started) {
                    started = true;
                    String property = instance.getConfig().getProperty(PERIOD_PROPERTY);
                    long period = property == null ? DEFAULT_PERIOD_MILLIS : Long.parseLong(property.trim());
                    int count = instance.getPartitionService().getPartitions().size();
                    delayMillis = Math.max(1, period / Math.max(1, count));
                }
                sweepNext();
            } catch (HazelcastInstanceNotActiveException e) {
                ended.run(); // stopping
                return;
            } catch (RuntimeException e) {
                if (!warned && instance.getLifecycleService().isRunning()) {
                    warned = true;
                    Logger.getLogger(ExpirySweep.class).warning("Sluice's sweep of expired entries failed on this"
                            + " member and goes on with the next partition (logged once per member): " + e, e);
                }
            }
            next(delayMillis);
        }

        /** The next partition of the round, if this member owns it. */
        private void sweepNext() {
            if (cursor >= partitions.size()) {
                cursor = 0;
                startRound();
            }
            if (partitions.isEmpty()) {
                return;
            }
            Partition partition = partitions.get(cursor++);
            registry.active = everyMemberSweeps();
            Member owner = partition.getOwner();
            if (!registry.active || owner == null || !owner.localMember() || maps.isEmpty()) {
                return;
            }
            int id = partition.getPartitionId();
            long atMillis = StepProcessor.now(instance) - MARGIN_MILLIS;
            long start = System.nanoTime();
            for (String map : maps) {
                instance.<String, long[]>getMap(map).removeAll(Predicates.partitionPredicate(anchor(id),
                        new ExpiredEntries(atMillis)));
            }
            registry.sweptNanos.add(System.nanoTime() - start);
            registry.partitionsSwept.increment();
        }

        /** The partitions in order, and the maps to sweep that exist (sweeping a map would create it). */
        private void startRound() {
            List<Partition> all = new ArrayList<>(instance.getPartitionService().getPartitions());
            all.sort(Comparator.comparingInt(Partition::getPartitionId));
            partitions = all;
            if (anchors.length != all.size()) {
                anchors = new String[all.size()];
            }
            List<String> existing = new ArrayList<>();
            for (DistributedObject object : instance.getDistributedObjects()) {
                if ("hz:impl:mapService".equals(object.getServiceName()) && registry.maps.contains(object.getName())) {
                    existing.add(object.getName());
                }
            }
            maps = existing;
        }

        private boolean everyMemberSweeps() {
            for (Member member : instance.getCluster().getMembers()) {
                if (!"1".equals(member.getAttribute(ATTRIBUTE))) {
                    return false;
                }
            }
            return true;
        }

        /** A key of partition {@code id}, which names the partition to the partition predicate. */
        private String anchor(int id) {
            String anchor = anchors[id];
            if (anchor == null) {
                for (int n = 0; ; n++) {
                    String candidate = "sluice-sweep~" + id + '~' + n;
                    if (instance.getPartitionService().getPartition(candidate).getPartitionId() == id) {
                        anchor = candidate;
                        break;
                    }
                }
                anchors[id] = anchor;
            }
            return anchor;
        }
    }

    private static ScheduledThreadPoolExecutor executor() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-expiry-sweep");
            t.setDaemon(true);
            return t;
        });
        executor.setKeepAliveTime(10, TimeUnit.SECONDS);
        executor.allowCoreThreadTimeOut(true);
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }
}
