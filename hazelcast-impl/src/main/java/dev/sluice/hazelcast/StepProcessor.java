package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Outcome;
import dev.sluice.limiter.algorithm.RequestCodec;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.spi.StepRequest;
import java.io.IOException;
import java.time.InstantSource;
import java.util.Map;

/**
 * One decision, run on the key's partition owner: a shell around the request's words ({@link RequestCodec})
 * and {@link StepRunner}. It reads the entry once, runs the step at the owner's time, writes the
 * {@link Outcome}'s state if it changed ({@link SetStateProcessor#write}) and answers a {@link BatchResult}
 * of one request.
 *
 * <p>A new instance per call: Hazelcast runs the caller's own instance when the caller owns the key, and
 * {@link #getBackupProcessor()} returns what {@link #process} left in this instance (Hazelcast calls it
 * after {@code process}, on the same thread). The backup processor carries the exact value and TTL the
 * primary stored, so a backup never decides again with another clock; when the step changed nothing
 * (a refusal, a probe) there is no backup processor, so the decision costs no backup round trip.
 *
 * <p>Storing state for a key that has none first asks {@link MemberCapacity} whether the map has room, when
 * it refuses new keys at its bound; a refusal is answered as {@link dev.sluice.limiter.CapacityExceededException}
 * and writes nothing.
 *
 * <p>A step's usage error (exactly {@link IllegalArgumentException} or {@link IllegalStateException}: the
 * key holds another algorithm's state, an invalid spec) is answered inside the result, not thrown: the
 * caller rethrows it with the same type and message, and the member does not log, once per request, a
 * warning for what the caller already gets. Anything else a step throws is Hazelcast's to report.
 *
 * <p>Time: the clock in the member's user context under {@link SluiceHazelcast#CLOCK_KEY} if there is
 * one (tests), else the member's cluster time, read once. The step itself never lets time run backwards
 * for a key ({@code max(now, state's last time)}), which absorbs the small steps back that cluster time
 * takes on heartbeats or after a migration to a member whose clock lags.
 *
 * <p>The stored {@code long[]} is never changed in place: with the {@code OBJECT} in-memory format this
 * processor is handed the live stored instance, and the step always builds a new array. The request's
 * spec is rebuilt (and so validated again) on the member.
 */
final class StepProcessor extends WireObject implements EntryProcessor<String, long[], BatchResult>,
        HazelcastInstanceAware {
    private long[] request;

    private transient HazelcastInstance instance;
    private transient SetStateProcessor<BatchResult> backup;

    StepProcessor() {}

    StepProcessor(StepRequest request) {
        this.request = RequestCodec.encode(request.spec(), request.op(), request.permits(), request.leaseId());
    }

    /** The spec this processor carries, rebuilt (and validated) from its wire form. */
    LimitSpec spec() {
        return RequestCodec.specAt(request, 0);
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public BatchResult process(Map.Entry<String, long[]> entry) {
        backup = null; // a retried operation may run this instance again
        long[] state = StoredState.unpack(entry.getValue()); // read once: in BINARY format every read is a new copy
        Outcome outcome;
        try {
            outcome = StepRunner.run(request, 0, state, now(instance));
            if (state == null && outcome.action() == Outcome.Action.WRITE) {
                MemberCapacity.checkRoom(instance, entry.getKey());
            }
        } catch (RuntimeException e) {
            if (!BatchResult.isAnswered(e)) {
                throw e;
            }
            return BatchResult.failed(e);
        }
        if (outcome.changes()) { // the backup copies the stored (packed) value: no second packing, fewer bytes
            backup = new SetStateProcessor<>(SetStateProcessor.write(entry, outcome.state(), outcome.ttlMillis()),
                    outcome.ttlMillis());
        }
        return BatchResult.of(outcome.verdict());
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

    /** A copy of the state {@link #process} wrote (or removed), or {@code null} when it changed nothing. */
    @Override
    public EntryProcessor<String, long[], BatchResult> getBackupProcessor() {
        return backup;
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.STEP;
    }

    @Override
    void writeFields(ObjectDataOutput out) throws IOException {
        out.writeLongArray(request);
    }

    @Override
    void readFields(ObjectDataInput in) throws IOException {
        request = in.readLongArray();
        if (request == null || request.length == 0 || request.length > BatchProcessor.MAX_WORDS_PER_REQUEST) {
            throw new IOException("a step request of " + (request == null ? "no" : request.length) + " words");
        }
        try {
            if (RequestCodec.next(request, 0) != request.length) {
                throw new IOException("a step request of " + request.length + " words holds more than one request");
            }
        } catch (IllegalArgumentException e) {
            throw new IOException("a malformed step request: " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "StepProcessor[" + spec() + ", op=" + RequestCodec.opAt(request, 0) + ", permits="
                + RequestCodec.permitsAt(request, 0) + "]";
    }
}
