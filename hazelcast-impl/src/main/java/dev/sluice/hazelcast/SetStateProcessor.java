package dev.sluice.hazelcast;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Writes a state computed elsewhere: the backup processor of {@link StepProcessor}, so a backup copies
 * the exact state and time-to-live the primary computed and never runs the step again. A {@code null}
 * state removes the entry. Answers {@code null}.
 *
 * @param <R> the result type the primary processor declares
 */
final class SetStateProcessor<R> implements EntryProcessor<String, long[], R>, IdentifiedDataSerializable {
    private long[] state;
    private long ttlMillis;

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
    public R process(Map.Entry<String, long[]> entry) {
        write(entry, state, ttlMillis);
        return null;
    }

    /** Stores {@code state} with its TTL, or removes the entry when it is null or has no time left. */
    static void write(Map.Entry<String, long[]> entry, long[] state, long ttlMillis) {
        if (state == null || ttlMillis <= 0) {
            entry.setValue(null);
        } else {
            // Never 0: Hazelcast reads a TTL of 0 as "live forever".
            ((ExtendedMapEntry<String, long[]>) entry).setValue(state, ttlMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** Itself: writing a given state is deterministic, so replaying it is a copy. */
    @Override
    public EntryProcessor<String, long[], R> getBackupProcessor() {
        return this;
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerFactory.factoryId();
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.SET_STATE;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(SluiceSerializerFactory.FORMAT_VERSION);
        out.writeLongArray(state);
        out.writeLong(ttlMillis);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        SluiceSerializerFactory.checkVersion(in.readByte(), getClass());
        state = in.readLongArray();
        ttlMillis = in.readLong();
    }
}
