package dev.sluice.hazelcast;

import dev.sluice.limiter.algorithm.StoredState;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.StepRunner.Outcome;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.RequestCodec;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.StepRequest;
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
 * was), applies the batch's {@link Outcome} once ({@link SetStateProcessor#write}: the final state, without a TTL
 * where the members sweep expired entries, else with the TTL of the last step that changed it) and answers one
 * {@link BatchResult} with each request's outcome.
 *
 * <p>A new instance per call: Hazelcast runs the caller's own instance when the caller owns the key, and
 * {@link #getBackupProcessor()} returns what {@link #process} left in this instance (Hazelcast calls it
 * after {@code process}, on the same thread). The backup never decides again with another clock: it is
 * built by {@link #backupOf} from what the primary stored: a copy of the packed state, or for a large state
 * the requests and the primary's time, run again on the backup's copy ({@link ReplayProcessor}). When the batch changed
 * nothing (refusals, probes) there is no backup processor, so the decision costs no backup round trip.
 *
 * <p>A batch with an acquisition on a key without state (or with an expired one, which is the same:
 * {@link Algorithms#isExpired}) first asks {@link MemberCapacity} where it goes, when the
 * map keeps its states at its bound ({@link dev.sluice.limiter.algorithm.Overflow#place}): a state of its own;
 * its overflow cell, which lives in the key's partition and is read and written here, in the same operation
 * ({@link #decideOnCell}); or nowhere, and every request fails with
 * {@link dev.sluice.limiter.CapacityExceededException} with nothing written. The processor names the map it runs
 * on, which an entry processor cannot otherwise learn.
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
    static final int MAX_REQUESTS_ON_WIRE = Coalescing.MAX_BATCH_REQUESTS;
    /** A reader refuses a request longer than this: the words of a composite of the most components. */
    static final int MAX_WORDS_PER_REQUEST = RequestCodec.FIXED_WORDS + 2
            + RequestCodec.SPEC_WORDS * LimitSpec.AllOf.MAX_COMPONENTS;

    /** The requests' words in arrival order, all on one key. Never changed after construction or reading. */
    private long[] requests;
    /** The map this runs on, for its bound; null in unit tests. */
    private String mapName;

    private transient HazelcastInstance instance;
    private transient EntryProcessor<String, long[], BatchResult> backup;

    StepProcessor() {}

    /** One request. */
    StepProcessor(StepRequest request) {
        this.requests = encode(request);
    }

    /** One request on {@code mapName}. */
    StepProcessor(String mapName, StepRequest request) {
        this(request);
        this.mapName = mapName;
    }

    /** @param requests on one key of {@code mapName}, in arrival order; at least one */
    StepProcessor(String mapName, List<StepRequest> requests) {
        this(requests);
        this.mapName = mapName;
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
        long[] before = entry.getValue(); // read once: in BINARY format every read is a new copy
        long[] state = StoredState.unpack(before);
        int count = RequestCodec.count(requests);
        BatchResult result = new BatchResult(count);
        // An expired state is no state: placed like a key without one (the sweep removes its entry in its time).
        Op placed = state == null || Algorithms.isExpired(state, now) ? placedOp() : null;
        MemberCapacity.Placing placing = placed != null
                ? MemberCapacity.placing(instance, mapName, entry.getKey()) : null;
        if (placing != null) {
            try {
                LimitSpec spec = spec();
                long[] cellValue = placing.cellValue(spec);
                switch (placing.place(spec, placed, now, StoredState.unpack(cellValue))) {
                    case CELL -> {
                        decideOnCell(placing, cellValue, now, result);
                        return result;
                    }
                    case REFUSE -> {
                        result.failAll(placing.refusal()); // nothing is stored, so no request took effect
                        return result;
                    }
                    default -> { } // a state of its own, below
                }
            } catch (RuntimeException e) {
                if (!BatchResult.isAnswered(e)) {
                    throw e;
                }
                result.failAll(e);
                return result;
            }
        }
        Outcome outcome;
        try {
            outcome = StepRunner.runAll(requests, state, now, result);
        } catch (RuntimeException e) {
            if (!BatchResult.isAnswered(e)) {
                throw e;
            }
            result.failAll(e); // nothing is stored, so none of the key's requests took effect
            return result;
        }
        if (outcome.changes()) {
            if (placing != null && before == null) {
                placing.admitted();
            }
            backup = backupOf(before, SetStateProcessor.write(entry, outcome.state(), outcome.ttlMillis(), instance,
                    mapName), outcome.ttlMillis(), now);
        }
        return result;
    }

    /**
     * The op the batch is placed by ({@link Op#isPlaced}): an acquisition if it holds one, else a read or reset,
     * else {@code null}.
     */
    private Op placedOp() {
        Op placed = null;
        for (int at = 0; at < requests.length; at = RequestCodec.next(requests, at)) {
            Op op = RequestCodec.opAt(requests, at);
            if (op == Op.ACQUIRE) {
                return op;
            }
            if (op.isPlaced()) {
                placed = op;
            }
        }
        return placed;
    }

    /**
     * The batch of a key without state, placed on its cell: each acquisition (or probe) runs on the cell, in
     * order, and is answered marked as decided there; a read reads the cell and a reset only reads it too
     * ({@link Overflow#onCell}: a cell is never reset); any other request runs on the key's absent state, where it
     * changes nothing, so a refund or release never reaches a cell. The cell is written once, in this operation,
     * and the backup replica writes the same value ({@link CellBackupProcessor}).
     */
    private void decideOnCell(MemberCapacity.Placing placing, long[] cellValue, long now, BatchResult result) {
        long[] cell = StoredState.unpack(cellValue);
        long ttlMillis = 0;
        boolean changed = false;
        for (int i = 0, at = 0; at < requests.length; i++, at = RequestCodec.next(requests, at)) {
            Op op = RequestCodec.opAt(requests, at);
            try {
                boolean onCell = op.isPlaced();
                Verdict v = Algorithms.step(RequestCodec.specAt(requests, at), onCell ? cell : null, now,
                        onCell ? Overflow.onCell(op) : op, RequestCodec.permitsAt(requests, at),
                        RequestCodec.leaseIdAt(requests, at));
                if (onCell) {
                    if (v.stateChanged(cell)) {
                        cell = v.ttlMillis() > 0 ? v.state() : null;
                        ttlMillis = v.ttlMillis();
                        changed = true;
                    }
                    result.verdict(i, Overflow.marked(v.withoutState()));
                } else {
                    result.verdict(i, v.withoutState());
                }
            } catch (RuntimeException e) {
                if (!BatchResult.isAnswered(e)) {
                    throw e;
                }
                result.failure(i, e);
            }
        }
        if (!changed) {
            return;
        }
        long[] stored = cell == null ? null : StoredState.pack(cell);
        long entryTtl = SetStateProcessor.entryTtlMillis(instance, ttlMillis);
        placing.writeCell(stored, entryTtl);
        if (cellValue == null && stored != null) {
            placing.admitted();
        }
        backup = new CellBackupProcessor(mapName, placing.cellKey(), stored, entryTtl);
    }

    /**
     * What the backup replica runs for a batch that changed the entry: a copy of the value the primary stored
     * (packed: no second packing, fewer bytes; {@code null}: removed) with the state's TTL; or, when the value
     * before and after holds at least {@link #replayWords} words and the map is known, the batch itself to run
     * again at this time ({@link ReplayProcessor}), which costs the same whatever the state's size.
     */
    private EntryProcessor<String, long[], BatchResult> backupOf(long[] before, long[] stored, long ttlMillis,
            long now) {
        int replay = replayWords();
        if (mapName != null && before != null && stored != null && before.length >= replay && stored.length >= replay) {
            return new ReplayProcessor<>(requests, now, before, stored, mapName);
        }
        return new SetStateProcessor<>(stored, ttlMillis);
    }

    /**
     * Property: the fewest words of a stored value for which a backup runs the batch again instead of copying the
     * state ({@value #DEFAULT_REPLAY_WORDS} unless set; 0 replays every change of an existing entry). Read once,
     * when the class loads, so no write pays a property lookup.
     */
    static final String REPLAY_WORDS_PROPERTY = "sluice.hazelcast.replayBackupWords";
    /** Below this a copy of the state is no larger than the requests it would replay. */
    static final int DEFAULT_REPLAY_WORDS = 64;

    private static volatile int replayWords = Integer.getInteger(REPLAY_WORDS_PROPERTY, DEFAULT_REPLAY_WORDS);

    static int replayWords() {
        return replayWords;
    }

    /** Sets {@link #replayWords()} in this JVM, for tests; returns the previous value. */
    static int replayWords(int words) {
        int previous = replayWords;
        replayWords = words;
        return previous;
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

    /**
     * What {@link #backupOf} made of the change {@link #process} made, or {@code null} when it changed nothing.
     */
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
        out.writeString(mapName);
    }

    @Override
    void readFields(ObjectDataInput in) throws IOException {
        requests = readRequests(in);
        mapName = in.readString();
    }

    /** A batch's request words, checked for a plausible length and count. */
    static long[] readRequests(ObjectDataInput in) throws IOException {
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
        return words;
    }

    @Override
    public String toString() {
        int n = size();
        return "StepProcessor[" + (n == 1 ? "" : n + " requests, first ") + spec() + ", op="
                + RequestCodec.opAt(requests, 0) + ", permits=" + RequestCodec.permitsAt(requests, 0) + "]";
    }
}
