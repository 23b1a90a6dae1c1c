package dev.sluice.hazelcast;

import dev.sluice.limiter.algorithm.StoredState;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import dev.sluice.limiter.algorithm.Algorithms;
import java.util.Map;

/**
 * Sends the primary's state of a key to its backups as it is, changing nothing on the primary: what a
 * {@link ReplayProcessor} asks for when the backup's copy was not the one the primary decided on. Answers
 * {@code null}.
 */
final class ResendProcessor extends WireObject implements EntryProcessor<String, long[], Object>, HazelcastInstanceAware {
    private transient HazelcastInstance instance;
    private transient SetStateProcessor<Object> backup;

    ResendProcessor() {}

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public Object process(Map.Entry<String, long[]> entry) {
        long[] stored = entry.getValue();
        long ttl = stored == null ? 0 : Algorithms.expiresAt(StoredState.unpack(stored)) - StepProcessor.now(instance);
        // Not Sluice state, or none left: the backup removes its copy, as the primary will.
        backup = new SetStateProcessor<>(stored, Math.max(0, ttl));
        return null;
    }

    /** The primary's state, copied. */
    @Override
    public EntryProcessor<String, long[], Object> getBackupProcessor() {
        return backup;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.RESEND;
    }
}
