package dev.sluice.benchmarks;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The floor of one Hazelcast hop: the least an entry processor can do and still be a limiter. An open
 * key's counter is incremented (a write, so a backup); a closed key ({@code open == false}) is refused
 * without reading or writing anything, so no backup. No clock, no TTL, no algorithm.
 */
final class RawCounterProcessor implements EntryProcessor<String, Long, Long>, IdentifiedDataSerializable {
    static final int FACTORY_ID = 0x5EB0;
    static final int CLASS_ID = 1;

    /** The TTL of {@link #RawCounterProcessor(boolean, boolean)} with a TTL: longer than any run. */
    static final long TTL_MILLIS = 3_600_000;

    private boolean open;
    private boolean ttl;
    private transient boolean changed;

    RawCounterProcessor() {}

    RawCounterProcessor(boolean open) {
        this(open, false);
    }

    /**
     * @param ttl write with a per-entry TTL (as Sluice does, so that idle state vanishes): the floor's cost
     *     of Hazelcast's expiry metadata, on every read and write of the owner and the backup
     */
    RawCounterProcessor(boolean open, boolean ttl) {
        this.open = open;
        this.ttl = ttl;
    }

    @Override
    public Long process(Map.Entry<String, Long> entry) {
        if (!open) {
            return -1L;
        }
        Long value = entry.getValue();
        long next = value == null ? 1 : value + 1;
        if (ttl) {
            ((ExtendedMapEntry<String, Long>) entry).setValue(next, TTL_MILLIS, TimeUnit.MILLISECONDS);
        } else {
            entry.setValue(next);
        }
        changed = true;
        return next;
    }

    @Override
    public EntryProcessor<String, Long, Long> getBackupProcessor() {
        return changed ? this : null;
    }

    @Override
    public int getFactoryId() {
        return FACTORY_ID;
    }

    @Override
    public int getClassId() {
        return CLASS_ID;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeBoolean(open);
        out.writeBoolean(ttl);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        open = in.readBoolean();
        ttl = in.readBoolean();
    }

    /** Registers this processor's factory on members and clients. */
    static final class Factory implements DataSerializableFactory {
        @Override
        public IdentifiedDataSerializable create(int typeId) {
            return typeId == CLASS_ID ? new RawCounterProcessor() : null;
        }
    }
}
