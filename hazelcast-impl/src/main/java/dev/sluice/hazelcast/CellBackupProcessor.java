package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;
import java.util.Map;

/**
 * The backup of a batch decided on an overflow cell: runs on the backup replica of the key the batch was sent to,
 * leaves that key alone (nothing was stored for it) and writes the cell, which lives in the same partition, with
 * the exact value and TTL the primary wrote. Copies, never decides again.
 */
final class CellBackupProcessor extends WireObject implements EntryProcessor<String, long[], BatchResult>,
        HazelcastInstanceAware {
    private String mapName;
    private String cellKey;
    /** The packed cell the primary stored, or {@code null}: removed. */
    private long[] stored;
    private long entryTtlMillis;

    private transient HazelcastInstance instance;

    CellBackupProcessor() {}

    CellBackupProcessor(String mapName, String cellKey, long[] stored, long entryTtlMillis) {
        this.mapName = mapName;
        this.cellKey = cellKey;
        this.stored = stored;
        this.entryTtlMillis = entryTtlMillis;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public BatchResult process(Map.Entry<String, long[]> entry) {
        int partition = instance.getPartitionService().getPartition(entry.getKey()).getPartitionId();
        HazelcastInternals.PartitionRecords records = HazelcastInternals.partitionRecords(instance, mapName, partition);
        if (records != null) { // the primary wrote the cell through the same path, so it resolved there
            records.write(cellKey, stored, entryTtlMillis);
        }
        return null;
    }

    @Override
    public EntryProcessor<String, long[], BatchResult> getBackupProcessor() {
        return null;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.CELL_BACKUP;
    }

    @Override
    void writeFields(ObjectDataOutput out) throws IOException {
        out.writeString(mapName);
        out.writeString(cellKey);
        out.writeLongArray(stored);
        out.writeLong(entryTtlMillis);
    }

    @Override
    void readFields(ObjectDataInput in) throws IOException {
        mapName = in.readString();
        cellKey = in.readString();
        stored = in.readLongArray();
        entryTtlMillis = in.readLong();
    }
}
