package dev.sluice.hazelcast;

import dev.sluice.limiter.algorithm.StoredState;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Writes a state computed elsewhere: the backup processor of a {@link StepProcessor} that changed a small state
 * (a large one is run again, {@link ReplayProcessor}), so a backup copies the exact state the primary computed,
 * with its time-to-live where entries still carry one ({@link ExpirySweep}). A {@code null} state removes the entry.
 * Answers {@code null}.
 *
 * <p>Also the one place a Sluice entry is written: {@link #write} stores a state (or removes the entry) on the
 * primary and on every backup.
 *
 * @param <R> the result type the primary processor declares
 */
final class SetStateProcessor<R> extends WireObject implements EntryProcessor<String, long[], R>,
        HazelcastInstanceAware {
    private long[] state;
    private long ttlMillis;

    private transient HazelcastInstance instance;

    SetStateProcessor() {}

    SetStateProcessor(long[] state, long ttlMillis) {
        this.state = state;
        this.ttlMillis = ttlMillis;
    }

    long[] state() {
        return state;
    }

    long ttlMillis() {
        return ttlMillis;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public R process(Map.Entry<String, long[]> entry) {
        write(entry, state, ttlMillis, instance);
        return null;
    }

    /**
     * Stores {@code state} ({@linkplain StoredState packed}) with its TTL, or removes the entry when it is null
     * or has no time left; returns what it stored ({@code null}: removed).
     *
     * <p>The entry's TTL is the state's plus {@link #EXPIRY_SLACK_MILLIS}: Hazelcast keeps an entry's
     * expiration time in whole seconds, rounded down ({@code ExpiryMetadataImpl} through
     * {@code TimeStripUtil.stripBaseTime}), so a TTL written as it is loses up to 999 ms, and an entry whose
     * expiry falls within the current second is gone at once; the next step would then read "absent" and
     * start afresh (measured: {@code fixedWindow(5, 100 ms)} admitted 15 times its limit). With the slack the
     * entry always outlives its state; the state's own expiry word decides when it stops mattering, so the
     * extra second only keeps an idle key's memory a little longer.
     */
    static long[] write(Map.Entry<String, long[]> entry, long[] state, long ttlMillis) {
        return write(entry, state, ttlMillis, null);
    }

    /**
     * {@link #write(Map.Entry, long[], long)} on {@code instance}: where its members sweep expired entries
     * ({@link ExpirySweep#sweeps}), without a TTL (the entry lives until removed, and a TTL an older Sluice gave it
     * is cleared); otherwise, and without an instance, with the state's TTL and the slack.
     */
    static long[] write(Map.Entry<String, long[]> entry, long[] state, long ttlMillis, HazelcastInstance instance) {
        return write(entry, state, ttlMillis, instance, null);
    }

    /** {@link #write(Map.Entry, long[], long, HazelcastInstance)} by a primary on {@code mapName}, which the sweep then covers. */
    static long[] write(Map.Entry<String, long[]> entry, long[] state, long ttlMillis, HazelcastInstance instance,
            String mapName) {
        if (state == null || ttlMillis <= 0) {
            entry.setValue(null);
            return null;
        }
        long[] stored = StoredState.pack(state); // a packed state packs to itself, so a backup copies it as is
        long entryTtl = ExpirySweep.sweeps(instance, mapName) ? NO_TTL : entryTtlMillis(ttlMillis);
        if (entryTtl == NO_TTL) {
            entry.setValue(stored); // the map's default: no expiry, and no expiry metadata kept or read
        } else {
            ((ExtendedMapEntry<String, long[]>) entry).setValue(stored, entryTtl, TimeUnit.MILLISECONDS);
        }
        return stored;
    }

    /** An entry TTL that means none: the entry lives until removed (Hazelcast reads a TTL of 0 as infinite). */
    static final long NO_TTL = 0;

    /**
     * The TTL to give, on {@code instance}, the entry of a state that matters for {@code stateTtlMillis} more:
     * {@link #NO_TTL} where the members sweep expired entries, else {@link #entryTtlMillis(long)}.
     */
    static long entryTtlMillis(HazelcastInstance instance, long stateTtlMillis) {
        return ExpirySweep.sweeps(instance) ? NO_TTL : entryTtlMillis(stateTtlMillis);
    }

    /**
     * Added to every entry's TTL: one second for the expiration's truncation to whole seconds, plus a margin for
     * the members' local clocks (expiry runs on them, the state on cluster time; see the class comment of
     * {@link SluiceHazelcast}).
     */
    static final long EXPIRY_SLACK_MILLIS = 1_000 + 250;

    /** The TTL to give an entry whose state matters for {@code stateTtlMillis} more; never 0 ("live forever"). */
    static long entryTtlMillis(long stateTtlMillis) {
        long ttl = stateTtlMillis + EXPIRY_SLACK_MILLIS;
        return ttl < 0 ? Long.MAX_VALUE : ttl; // saturate: a state that lives for ever stays for ever
    }

    /** Itself: writing a given state is deterministic, so replaying it is a copy. */
    @Override
    public EntryProcessor<String, long[], R> getBackupProcessor() {
        return this;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.SET_STATE;
    }

    @Override
    void writeFields(ObjectDataOutput out) throws IOException {
        out.writeLongArray(state);
        out.writeLong(ttlMillis);
    }

    @Override
    void readFields(ObjectDataInput in) throws IOException {
        state = in.readLongArray();
        ttlMillis = in.readLong();
    }
}
