package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Outcome;
import dev.sluice.limiter.algorithm.RequestCodec;
import dev.sluice.limiter.algorithm.SpecCodec;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.spi.StepRequest;
import java.io.IOException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one processor that decides: 1 to N requests queued for one key (their {@link RequestCodec} words,
 * concatenated), run on the key's partition owner in the order they were asked. It reads the entry once,
 * reads the owner's time once, runs every request through {@link StepRunner#runAll} (each step on the state
 * the previous one left; a request whose step throws gets its own exception and leaves the state as it
 * was), applies the batch's {@link Outcome} once ({@link SetStateProcessor#write}: the final state with the
 * TTL of the last step that changed it) and answers one {@link BatchResult} with each request's outcome.
 *
 * <p>A new instance per call: Hazelcast runs the caller's own instance when the caller owns the key, and
 * {@link #getBackupProcessor()} returns what {@link #process} left in this instance (Hazelcast calls it
 * after {@code process}, on the same thread). The backup never decides again with another clock: it is
 * built by {@link #backupOf} from what the primary stored (a copy of the packed state today; one place to
 * change should a large state be better served by shipping the requests instead). When the batch changed
 * nothing (refusals, probes) there is no backup processor, so the decision costs no backup round trip.
 *
 * <p>Storing state for a key that has none first asks {@link MemberCapacity} whether the map has room, when
 * it refuses new keys at its bound; a refusal fails every request of the batch with
 * {@link dev.sluice.limiter.CapacityExceededException} and writes nothing, since none of them took effect.
 *
 * <p>A step's usage error (exactly {@link IllegalArgumentException} or {@link IllegalStateException}: the
 * key holds another algorithm's state, an invalid spec) is answered inside the result, not thrown: the
 * caller rethrows it with the same type and message, and the member does not log, once per request, a
 * warning for what the caller already gets.
 *
 * <p>Time: the clock in the member's user context under {@link SluiceHazelcast#CLOCK_KEY} if there is
 * one (tests), else the member's cluster time, read once. The step itself never lets time run backwards
 * for a key ({@code max(now, state's last time)}), which absorbs the small steps back that cluster time
 * takes on heartbeats or after a migration to a member whose clock lags.
 *
 * <p>The stored {@code long[]} is never changed in place: with the {@code OBJECT} in-memory format this
 * processor is handed the live stored instance, and the step always builds a new array. The requests'
 * specs are rebuilt (and so validated again) on the member.
 */
final class StepProcessor extends WireObject implements EntryProcessor<String, long[], BatchResult>,
        HazelcastInstanceAware {
    /** A reader refuses more requests than this in one processor or result (a corrupt or hostile length). */
    static final int MAX_REQUESTS_ON_WIRE = 1 << 16;
    /** A reader refuses a request longer than this: the words of a composite of the most components. */
    static final int MAX_WORDS_PER_REQUEST = RequestCodec.FIXED_WORDS + 2
            + SpecCodec.WORDS * LimitSpec.AllOf.MAX_COMPONENTS;

    /** The requests' words in arrival order, all on one key. Never changed after construction or reading. */
    private long[] requests;

    private transient HazelcastInstance instance;
    private transient SetStateProcessor<BatchResult> backup;

    StepProcessor() {}

    /** One request. */
    StepProcessor(StepRequest request) {
        this.requests = encode(request);
    }

    /** @param requests on one key, in arrival order; at least one */
    StepProcessor(List<StepRequest> requests) {
        if (requests.size() == 1) {
            this.requests = encode(requests.get(0));
            return;
        }
        List<long[]> encoded = new ArrayList<>(requests.size());
        for (StepRequest r : requests) {
            encoded.add(encode(r));
        }
        this.requests = RequestCodec.concat(encoded);
    }

    private static long[] encode(StepRequest r) {
        return RequestCodec.encode(r.spec(), r.op(), r.permits(), r.leaseId());
    }

    /** The number of requests this processor carries. */
    int size() {
        return RequestCodec.count(requests);
    }

    /** The spec of the first request, rebuilt (and validated) from its wire form. */
    LimitSpec spec() {
        return RequestCodec.specAt(requests, 0);
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public BatchResult process(Map.Entry<String, long[]> entry) {
        return processAt(entry, now(instance));
    }

    /** {@link #process} at a given time (tests). */
    BatchResult processAt(Map.Entry<String, long[]> entry, long now) {
        backup = null; // a retried operation may run this instance again
        long[] state = StoredState.unpack(entry.getValue()); // read once: in BINARY format every read is a new copy
        BatchResult result = new BatchResult(RequestCodec.count(requests));
        Outcome outcome;
        try {
            outcome = StepRunner.runAll(requests, state, now, result);
            if (state == null && outcome.action() == Outcome.Action.WRITE) {
                MemberCapacity.checkRoom(instance, entry.getKey());
            }
        } catch (RuntimeException e) {
            if (!BatchResult.isAnswered(e)) {
                throw e;
            }
            result.failAll(e); // nothing is stored, so none of the key's requests took effect
            return result;
        }
        if (outcome.changes()) {
            backup = backupOf(SetStateProcessor.write(entry, outcome.state(), outcome.ttlMillis()), outcome.ttlMillis());
        }
        return result;
    }

    /**
     * What the backup replica runs for a batch that changed the entry: a copy of the value the primary stored
     * (packed: no second packing, fewer bytes; {@code null}: removed) with the state's TTL.
     */
    private static SetStateProcessor<BatchResult> backupOf(long[] stored, long ttlMillis) {
        return new SetStateProcessor<>(stored, ttlMillis);
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
        out.writeLongArray(requests);
    }

    @Override
    void readFields(ObjectDataInput in) throws IOException {
        long[] words = in.readLongArray();
        if (words == null || words.length == 0 || words.length > MAX_REQUESTS_ON_WIRE * MAX_WORDS_PER_REQUEST) {
            throw new IOException("a step of " + (words == null ? "no" : words.length) + " request words");
        }
        try {
            if (RequestCodec.count(words) > MAX_REQUESTS_ON_WIRE) {
                throw new IOException("a step of more than " + MAX_REQUESTS_ON_WIRE + " requests");
            }
        } catch (IllegalArgumentException e) {
            throw new IOException("a malformed step: " + e.getMessage(), e);
        }
        requests = words;
    }

    @Override
    public String toString() {
        int n = size();
        return "StepProcessor[" + (n == 1 ? "" : n + " requests, first ") + spec() + ", op="
                + RequestCodec.opAt(requests, 0) + ", permits=" + RequestCodec.permitsAt(requests, 0) + "]";
    }
}
