package dev.sluice.hazelcast;

import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The backup processor of {@link BatchProcessor}: for each key it names, writes the exact state and TTL
 * the primary computed (a {@code null} state removes the entry); any other key is left untouched. It
 * never runs a step. Answers {@code null}.
 */
final class BatchBackupProcessor extends WireObject implements EntryProcessor<String, long[], BatchResult> {
    private String[] keys;
    private long[][] states;
    private long[] ttls;
    private transient Map<String, Integer> index;

    BatchBackupProcessor() {}

    BatchBackupProcessor(List<String> keys, List<BatchProcessor.Written> written) {
        int n = keys.size();
        this.keys = keys.toArray(new String[0]);
        this.states = new long[n][];
        this.ttls = new long[n];
        for (int i = 0; i < n; i++) {
            states[i] = written.get(i).state();
            ttls[i] = written.get(i).ttlMillis();
        }
    }

    /** The keys this backup writes. */
    List<String> keys() {
        return List.of(keys);
    }

    /** The state this backup writes for {@code key}; only for keys it names. */
    long[] state(String key) {
        return states[indexOf(key)];
    }

    long ttlMillis(String key) {
        return ttls[indexOf(key)];
    }

    private int indexOf(String key) {
        Map<String, Integer> idx = index;
        if (idx == null) { // one backup operation runs this on one thread at a time
            idx = new HashMap<>(keys.length * 2);
            for (int i = 0; i < keys.length; i++) {
                idx.put(keys[i], i);
            }
            index = idx;
        }
        Integer i = idx.get(key);
        return i == null ? -1 : i;
    }

    @Override
    public BatchResult process(Map.Entry<String, long[]> entry) {
        int i = indexOf(entry.getKey());
        if (i >= 0) {
            SetStateProcessor.write(entry, states[i], ttls[i]);
        }
        return null;
    }

    /** Itself: writing given states is deterministic. */
    @Override
    public EntryProcessor<String, long[], BatchResult> getBackupProcessor() {
        return this;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.BATCH_BACKUP;
    }

    @Override
    void writeFields(ObjectDataOutput out) throws IOException {
        out.writeInt(keys.length);
        for (int i = 0; i < keys.length; i++) {
            out.writeString(keys[i]);
            out.writeLongArray(states[i]);
            out.writeLong(ttls[i]);
        }
    }

    @Override
    void readFields(ObjectDataInput in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > BatchProcessor.MAX_REQUESTS_ON_WIRE) {
            throw new IOException("a batch backup of " + n + " keys is out of range");
        }
        keys = new String[n];
        states = new long[n][];
        ttls = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = in.readString();
            states[i] = in.readLongArray();
            ttls[i] = in.readLong();
        }
    }

    @Override
    public String toString() {
        return "BatchBackupProcessor[" + keys.length + " keys]";
    }
}
