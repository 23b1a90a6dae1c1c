package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.limiter.algorithm.Outcome;
import dev.sluice.limiter.algorithm.RequestCodec;
import dev.sluice.limiter.algorithm.SpecCodec;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.spi.StepRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Many decisions in one hop: for each key, the requests queued for it (their {@link RequestCodec} words,
 * concatenated), decided in the order they were asked by one run on that key. Sent with
 * {@code submitToKey} (one key) or {@code submitToKeys} (several keys of one partition).
 *
 * <p>Per key: the time is read once ({@link StepProcessor#now}) and {@link StepRunner#runAll} runs each
 * request's step on the state the previous one left; a request whose step throws gets its own exception
 * and leaves the state as it was. The batch's {@link Outcome} is applied once
 * ({@link SetStateProcessor#apply}): the final state with the TTL of the last step that changed it, and
 * only if it differs from the stored one. Each request's outcome goes back in one {@link BatchResult} per
 * key.
 *
 * <p>Thread-safety. Unlike {@link StepProcessor}, one instance is shared: for {@code submitToKeys}
 * Hazelcast's {@code MultipleEntryOperationFactory} hands the same instance (the caller's own on the
 * owner, one deserialized copy per member otherwise) to one {@code MultipleEntryOperation} per
 * partition, and those run concurrently on different partition threads. Each such operation calls
 * {@link #process} for the keys of its partition, then {@link #getBackupProcessor()} (twice: in
 * {@code shouldBackup} and {@code getBackupOperation}) on the same partition thread, before that thread
 * runs anything else. The request map is read-only after construction; what {@code process} wrote is
 * kept per thread ({@link ThreadWrites}, only ever touched by its own thread, in a
 * {@link ConcurrentHashMap} keyed by thread), and in {@link #allWrites}, a concurrent map of every
 * key's final state.
 *
 * <p>The backup rule. {@link #getBackupProcessor()} returns a {@link BatchBackupProcessor} carrying the
 * exact state and TTL this member computed for every key it changed in the partition operation that just
 * ran on this thread (keys left unchanged are not in it; when none changed there is no backup processor
 * and no backup round trip). Hazelcast's {@code MultipleEntryBackupOperation} carries all of the batch's
 * keys but, like the primary, skips keys of other partitions ({@code EntryOperator.operateOnKey}), so a
 * backup only ever writes its own partition's keys, each with the value its primary stored. If this
 * thread ran no {@code process} of this instance (not expected on a plain map), the backup processor
 * falls back to every key changed so far: a superset, which the partition filter makes equally exact.
 */
final class BatchProcessor extends WireObject implements EntryProcessor<String, long[], BatchResult>,
        HazelcastInstanceAware {
    /** A reader refuses more requests than this in one batch or result (a corrupt or hostile length). */
    static final int MAX_REQUESTS_ON_WIRE = 1 << 16;
    /** A reader refuses a request longer than this: the words of a composite of the most components. */
    static final int MAX_WORDS_PER_REQUEST = RequestCodec.FIXED_WORDS + 2
            + SpecCodec.WORDS * dev.sluice.limiter.LimitSpec.AllOf.MAX_COMPONENTS;

    /** Per key, its requests' words in arrival order. Never changed after construction or reading. */
    private Map<String, long[]> requests;

    private transient volatile HazelcastInstance instance;
    private final transient ConcurrentHashMap<Thread, ThreadWrites> threadWrites = new ConcurrentHashMap<>();
    private final transient ConcurrentHashMap<String, Written> allWrites = new ConcurrentHashMap<>();

    /** What one partition thread wrote since its last {@link #getBackupProcessor()}; confined to that thread. */
    private static final class ThreadWrites {
        final Map<String, Written> writes = new LinkedHashMap<>();
        boolean sealed;
    }

    /** A state written (null: removed) with its TTL. */
    record Written(long[] state, long ttlMillis) {}

    BatchProcessor() {}

    /** @param requests per key, its requests in arrival order (all for that key) */
    BatchProcessor(Map<String, List<StepRequest>> requests) {
        this.requests = new LinkedHashMap<>();
        requests.forEach((key, list) -> {
            List<long[]> encoded = new ArrayList<>(list.size());
            for (StepRequest r : list) {
                encoded.add(RequestCodec.encode(r.spec(), r.op(), r.permits(), r.leaseId()));
            }
            this.requests.put(key, RequestCodec.concat(encoded));
        });
    }

    Set<String> keys() {
        return requests.keySet();
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public BatchResult process(Map.Entry<String, long[]> entry) {
        return processAt(entry, StepProcessor.now(instance));
    }

    /** {@link #process} at a given time (tests). */
    BatchResult processAt(Map.Entry<String, long[]> entry, long now) {
        String key = entry.getKey();
        long[] words = requests.get(key);
        if (words == null) {
            return null; // not a key of this batch: Hazelcast never asks
        }
        BatchResult result = new BatchResult(RequestCodec.count(words));
        long[] state = StoredState.unpack(entry.getValue());
        Outcome outcome = StepRunner.runAll(words, state, now, result);
        ThreadWrites mine = threadWrites.computeIfAbsent(Thread.currentThread(), t -> new ThreadWrites());
        if (mine.sealed) { // a new partition operation on this thread: the previous one's backup is gone
            mine.writes.clear();
            mine.sealed = false;
        }
        if (state == null && outcome.action() == Outcome.Action.WRITE) {
            try {
                MemberCapacity.checkRoom(instance, key);
            } catch (RuntimeException refused) {
                if (!BatchResult.isAnswered(refused)) {
                    throw refused;
                }
                result.failAll(refused); // nothing is stored, so none of the key's requests took effect
                return result;
            }
        }
        if (SetStateProcessor.apply(entry, outcome)) {
            Written written = new Written(outcome.state(), outcome.ttlMillis());
            mine.writes.put(key, written);
            allWrites.put(key, written);
        }
        return result;
    }

    /**
     * The states the partition operation that just ran on this thread wrote, or {@code null} when it
     * wrote none; see the class comment.
     */
    @Override
    public EntryProcessor<String, long[], BatchResult> getBackupProcessor() {
        ThreadWrites mine = threadWrites.get(Thread.currentThread());
        Map<String, Written> writes;
        if (mine != null) {
            mine.sealed = true;
            writes = mine.writes;
        } else {
            writes = allWrites;
        }
        if (writes.isEmpty()) {
            return null;
        }
        List<String> keys = new ArrayList<>(writes.size());
        List<Written> states = new ArrayList<>(writes.size());
        writes.forEach((k, w) -> {
            keys.add(k);
            states.add(w);
        });
        return new BatchBackupProcessor(keys, states);
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.BATCH;
    }

    @Override
    void writeFields(ObjectDataOutput out) throws IOException {
        out.writeInt(requests.size());
        for (Map.Entry<String, long[]> e : requests.entrySet()) {
            out.writeString(e.getKey());
            out.writeLongArray(e.getValue());
        }
    }

    @Override
    void readFields(ObjectDataInput in) throws IOException {
        int keys = in.readInt();
        if (keys < 0 || keys > MAX_REQUESTS_ON_WIRE) {
            throw new IOException("a batch of " + keys + " keys is out of range");
        }
        requests = new LinkedHashMap<>();
        for (int i = 0; i < keys; i++) {
            String key = in.readString();
            long[] words = in.readLongArray();
            if (words == null || words.length == 0 || words.length > MAX_REQUESTS_ON_WIRE * MAX_WORDS_PER_REQUEST) {
                throw new IOException("malformed requests for key " + key + " in a batch");
            }
            try {
                if (RequestCodec.count(words) > MAX_REQUESTS_ON_WIRE) {
                    throw new IOException("too many requests for key " + key + " in a batch");
                }
            } catch (IllegalArgumentException e) {
                throw new IOException("malformed requests for key " + key + " in a batch: " + e.getMessage(), e);
            }
            requests.put(key, words);
        }
    }

    @Override
    public String toString() {
        int n = 0;
        for (long[] words : requests.values()) {
            n += RequestCodec.count(words);
        }
        return "BatchProcessor[" + n + " requests on " + requests.size() + " keys]";
    }
}
