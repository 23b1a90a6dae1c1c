package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.core.ReadOnly;
import com.hazelcast.map.EntryProcessor;
import dev.sluice.limiter.algorithm.Verdict;
import java.util.Map;

/**
 * Run once per member when limiters are created: proves that the member can deserialize Sluice's
 * processors and that the caller can read a Sluice answer. Reads nothing, writes nothing, answers one
 * verdict whose limit is the member's {@link SluiceSerializerFactory#FORMAT_VERSION} and whose remaining
 * permits are the member's time.
 */
final class ProbeProcessor extends WireObject implements EntryProcessor<String, long[], BatchResult>, ReadOnly,
        HazelcastInstanceAware {
    private transient HazelcastInstance instance;

    ProbeProcessor() {}

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public BatchResult process(Map.Entry<String, long[]> entry) {
        return BatchResult.of(Verdict.of(true, StepProcessor.now(instance), SluiceSerializerFactory.FORMAT_VERSION, -1,
                0, 0));
    }

    @Override
    public EntryProcessor<String, long[], BatchResult> getBackupProcessor() {
        return null;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.PROBE;
    }
}
