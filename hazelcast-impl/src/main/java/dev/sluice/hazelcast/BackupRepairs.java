package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.logging.ILogger;
import com.hazelcast.logging.Logger;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Repairs of backups found to differ from their primary ({@link ReplayProcessor}): each asks the key's owner to
 * send its state to the backups ({@link ResendProcessor}), from a daemon thread of its own (never the partition
 * thread that found the difference, never the common pool).
 *
 * <p>Hazelcast does not repair such a backup by itself: its anti-entropy compares replica versions only, and the
 * replay that found the difference has bumped the version like any backup. So a repair is never dropped silently.
 * One key waits once however often it is found; a repair that fails while the instance runs (a migration, an
 * owner changing) is tried again with growing pauses, {@value #ATTEMPTS} times in all; a repair that still
 * fails, or finds more than {@value #MAX_PENDING} keys waiting, is logged as a warning naming the map and key and
 * counted ({@link #escalated()}): that backup stays behind its primary until the key's next write or a migration.
 */
final class BackupRepairs {
    static final int MAX_PENDING = 65_536;
    static final int ATTEMPTS = 8;
    private static final long FIRST_PAUSE_MILLIS = 50;
    private static final ILogger LOG = Logger.getLogger(BackupRepairs.class);
    private static final BackupRepairs SHARED = new BackupRepairs(MAX_PENDING);

    private record Repair(HazelcastInstance instance, String map, String key) {}

    private final int maxPending;
    private final Set<Repair> pending = ConcurrentHashMap.newKeySet();
    private final LongAdder repaired = new LongAdder();
    private final LongAdder escalated = new LongAdder();
    private final ScheduledThreadPoolExecutor executor;

    BackupRepairs(int maxPending) {
        this.maxPending = maxPending;
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-backup-repair");
            t.setDaemon(true);
            return t;
        });
        executor.setKeepAliveTime(10, TimeUnit.SECONDS);
        executor.allowCoreThreadTimeOut(true);
    }

    /** The repairs of this JVM's members. */
    static BackupRepairs shared() {
        return SHARED;
    }

    /** Asks for the backups of {@code key} in {@code map} to be sent the primary's state. */
    void request(HazelcastInstance instance, String map, String key) {
        Repair repair = new Repair(instance, map, key);
        if (pending.contains(repair)) {
            return; // one resend carries the owner's latest state, whatever else arrived meanwhile
        }
        if (pending.size() >= maxPending) {
            escalate(repair, "more than " + maxPending + " backups wait for repair on this member");
            return;
        }
        if (pending.add(repair)) {
            executor.execute(() -> attempt(repair, 1));
        }
    }

    private void attempt(Repair repair, int attempt) {
        try {
            repair.instance().<String, long[]>getMap(repair.map()).executeOnKey(repair.key(), new ResendProcessor());
            pending.remove(repair);
            repaired.increment();
        } catch (RuntimeException e) {
            if (!repair.instance().getLifecycleService().isRunning()) {
                pending.remove(repair); // the member is gone, and its replicas with it
            } else if (attempt < ATTEMPTS) {
                executor.schedule(() -> attempt(repair, attempt + 1), FIRST_PAUSE_MILLIS << attempt,
                        TimeUnit.MILLISECONDS);
            } else {
                pending.remove(repair);
                escalate(repair, "its owner could not be reached in " + ATTEMPTS + " attempts (" + e + ")");
            }
        }
    }

    private void escalate(Repair repair, String why) {
        escalated.increment();
        LOG.warning("the backup of key '" + repair.key() + "' in map '" + repair.map() + "' differs from its primary"
                + " and was not repaired: " + why + "; it catches up at the key's next write or a migration");
    }

    /** Keys waiting for their repair now. */
    int pending() {
        return pending.size();
    }

    /** Repairs sent. */
    long repaired() {
        return repaired.sum();
    }

    /** Repairs given up on, each logged. */
    long escalated() {
        return escalated.sum();
    }
}
