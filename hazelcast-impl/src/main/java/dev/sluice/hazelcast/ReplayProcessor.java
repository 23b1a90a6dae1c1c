package dev.sluice.hazelcast;

import dev.sluice.limiter.algorithm.StoredState;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.limiter.algorithm.StepRunner.Outcome;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.algorithm.Verdict;
import java.io.IOException;
import java.util.Map;

/**
 * The backup of a {@link StepProcessor} batch that changed a large state: instead of the state, the batch's
 * requests and the primary's time, run again on the backup's copy. The steps are pure, so the same requests on
 * the same state at the same time give the same state; what the backup stores is checked against a fingerprint
 * of what the primary stored.
 *
 * <p>The backup's copy is checked first against a fingerprint of the value the primary started from. When either
 * differs (a backup that missed a write, an entry that expired on one replica and not the other), the backup
 * leaves its copy and asks the primary for its state ({@link BackupRepairs}, which sends a {@link ResendProcessor}
 * from a thread of its own and never drops the request silently): until that lands, the backup holds an older
 * state, as after a lost backup.
 *
 * <p>The fingerprint reads the length and at most {@value #SAMPLED} words (the first, the last and a stride
 * between), so it costs the same for every state: a divergence that changes none of those words is not seen.
 * Every step that changes a state writes its latest time, so two copies that saw different decisions differ in
 * the header.
 *
 * @param <R> the result type the primary processor declares
 */
final class ReplayProcessor<R> extends WireObject implements EntryProcessor<String, long[], R>, HazelcastInstanceAware {
    /** Words a fingerprint reads at most. */
    static final int SAMPLED = 48;
    private long[] requests;
    private long nowMillis;
    private long before;
    private long after;
    private String mapName;

    private transient HazelcastInstance instance;

    ReplayProcessor() {}

    ReplayProcessor(long[] requests, long nowMillis, long[] before, long[] after, String mapName) {
        this.requests = requests;
        this.nowMillis = nowMillis;
        this.before = fingerprint(before);
        this.after = fingerprint(after);
        this.mapName = mapName;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public R process(Map.Entry<String, long[]> entry) {
        if (!replay(entry)) {
            resend(entry.getKey());
        }
        return null;
    }

    /** Runs the batch again on the entry; false when the entry was not the primary's or did not end as it did. */
    boolean replay(Map.Entry<String, long[]> entry) {
        long[] value = entry.getValue();
        if (fingerprint(value) != before) {
            return false;
        }
        Outcome outcome;
        try {
            outcome = StepRunner.runAll(requests, StoredState.unpack(value), nowMillis, IGNORED);
        } catch (RuntimeException e) {
            return false; // the primary's run did not throw: this copy is not the primary's
        }
        long[] stored = outcome.changes() ? SetStateProcessor.write(entry, outcome.state(), outcome.ttlMillis(),
                instance) : value;
        return fingerprint(stored) == after;
    }

    private void resend(String key) {
        if (instance != null && mapName != null) {
            BackupRepairs.shared().request(instance, mapName, key);
        }
    }

    /** An order-sensitive 64-bit digest of a value's length and sampled words; 0 for none. */
    static long fingerprint(long[] value) {
        if (value == null) {
            return 0;
        }
        int n = value.length;
        long h = 0x9E3779B97F4A7C15L ^ n;
        int head = Math.min(n, SAMPLED / 3);
        for (int i = 0; i < head; i++) {
            h = mix(h, value[i]);
        }
        int tail = Math.max(head, n - SAMPLED / 3);
        int stride = Math.max(1, (tail - head) / (SAMPLED / 3));
        for (int i = head; i < tail; i += stride) {
            h = mix(h, value[i]);
        }
        for (int i = tail; i < n; i++) {
            h = mix(h, value[i]);
        }
        return h == 0 ? 1 : h;
    }

    private static long mix(long h, long word) {
        long x = (h ^ word) * 0xBF58476D1CE4E5B9L;
        return x ^ (x >>> 31);
    }

    /** None: the backup acknowledges, it never answers. */
    @Override
    public EntryProcessor<String, long[], R> getBackupProcessor() {
        return null;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.REPLAY;
    }

    @Override
    void writeFields(ObjectDataOutput out) throws IOException {
        out.writeLongArray(requests);
        out.writeLong(nowMillis);
        out.writeLong(before);
        out.writeLong(after);
        out.writeString(mapName);
    }

    @Override
    void readFields(ObjectDataInput in) throws IOException {
        requests = StepProcessor.readRequests(in);
        nowMillis = in.readLong();
        before = in.readLong();
        after = in.readLong();
        mapName = in.readString();
    }

    private static final StepRunner.Results IGNORED = new StepRunner.Results() {
        @Override
        public void verdict(int index, Verdict verdict) {}

        @Override
        public void failure(int index, RuntimeException failure) {}
    };
}
