package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.SpecCodec;
import dev.sluice.limiter.spi.StepRequest;
import dev.sluice.limiter.algorithm.Verdict;
import java.io.IOException;
import java.time.InstantSource;
import java.util.Map;

/**
 * One decision, run on the key's partition owner: read the state, run the pure step at the owner's
 * time, write the new state with its TTL (or remove it), answer with a {@link WireVerdict}.
 *
 * <p>A new instance per call: Hazelcast runs the caller's own instance when the caller owns the key, and
 * {@link #getBackupProcessor()} reads what {@link #process} left in this instance (Hazelcast calls it
 * after {@code process}, on the same thread). The backup processor carries the exact state and TTL the
 * primary computed, so a backup never decides again with another clock; when the step changed nothing
 * (a refusal, a probe) there is no backup processor, so the decision costs no backup round trip.
 *
 * <p>Time: the clock in the member's user context under {@link SluiceHazelcast#CLOCK_KEY} if there is
 * one (tests), else the member's cluster time, read once. The step itself never lets time run backwards
 * for a key ({@code max(now, state's last time)}), which absorbs the small steps back that cluster time
 * takes on heartbeats or after a migration to a member whose clock lags.
 *
 * <p>The stored {@code long[]} is never changed in place: with the {@code OBJECT} in-memory format this
 * processor is handed the live stored instance, and the step always builds a new array.
 *
 * <p>The spec travels as its algorithm id and up to three parameters and is rebuilt (and so validated
 * again) on the member.
 */
final class StepProcessor implements EntryProcessor<String, long[], WireVerdict>, IdentifiedDataSerializable,
        HazelcastInstanceAware {
    private int algorithm;
    private long p1;
    private long p2;
    private long p3;
    private int op;
    private long permits;
    private long leaseId;

    private transient HazelcastInstance instance;
    private transient boolean changed;
    private transient long[] newState;
    private transient long ttlMillis;

    StepProcessor() {}

    StepProcessor(StepRequest request) {
        long[] spec = SpecCodec.encode(request.spec());
        this.algorithm = (int) spec[0];
        this.p1 = spec[1];
        this.p2 = spec[2];
        this.p3 = spec[3];
        this.op = request.op().id();
        this.permits = request.permits();
        this.leaseId = request.leaseId();
    }

    /** The spec this processor carries, rebuilt (and validated) from its wire form. */
    LimitSpec spec() {
        return SpecCodec.decode(algorithm, p1, p2, p3);
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public WireVerdict process(Map.Entry<String, long[]> entry) {
        long[] state = entry.getValue(); // read once: in BINARY format every read is a new copy
        Verdict v = Algorithms.step(spec(), state, now(instance), Op.ofId(op), permits, leaseId);
        if (v.stateChanged(state)) {
            changed = true;
            newState = v.state();
            ttlMillis = v.ttlMillis();
            SetStateProcessor.write(entry, newState, ttlMillis);
        }
        return new WireVerdict(v);
    }

    /** Time on this member: an injected {@link InstantSource} (tests) or the cluster time. */
    static long now(HazelcastInstance instance) {
        if (instance == null) {
            return System.currentTimeMillis();
        }
        Object clock = instance.getUserContext().get(SluiceHazelcast.CLOCK_KEY);
        if (clock instanceof InstantSource source) {
            return source.millis();
        }
        return instance.getCluster().getClusterTime();
    }

    /** A copy of the state {@link #process} wrote, or {@code null} when it wrote nothing. */
    @Override
    public EntryProcessor<String, long[], WireVerdict> getBackupProcessor() {
        return changed ? new SetStateProcessor<>(newState, ttlMillis) : null;
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerFactory.factoryId();
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.STEP;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(SluiceSerializerFactory.FORMAT_VERSION);
        out.writeByte(algorithm);
        out.writeLong(p1);
        out.writeLong(p2);
        out.writeLong(p3);
        out.writeByte(op);
        out.writeLong(permits);
        out.writeLong(leaseId);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        SluiceSerializerFactory.checkVersion(in.readByte(), getClass());
        algorithm = in.readByte();
        p1 = in.readLong();
        p2 = in.readLong();
        p3 = in.readLong();
        op = in.readByte();
        permits = in.readLong();
        leaseId = in.readLong();
    }

    @Override
    public String toString() {
        return "StepProcessor[" + spec() + ", op=" + Op.ofId(op) + ", permits=" + permits + "]";
    }
}
