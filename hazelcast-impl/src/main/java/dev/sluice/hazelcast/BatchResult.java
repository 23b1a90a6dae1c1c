package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastException;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.Outcomes;
import dev.sluice.limiter.store.StepOutcomes;
import java.io.IOException;

/**
 * The answer of the processor that decides ({@link StepProcessor}), on the wire: the {@link StepOutcomes} of the 1
 * to N requests it ran on one key, in the order they were asked. A failure of the member itself (not a step's usage
 * error nor a capacity refusal, which come back as they were thrown) is rebuilt as a {@link HazelcastException}.
 */
final class BatchResult extends WireObject implements StepRunner.Results, Outcomes {
    // The kinds on the wire are StepOutcomes' (0 to 4). 5 was a redirect to an overflow cell (cells are now decided
    // in the key's own operation): retired, never reused.

    private StepOutcomes outcomes;

    BatchResult() {}

    BatchResult(int size) {
        this.outcomes = new StepOutcomes(size);
    }

    /** The answer of one request that has a verdict. */
    static BatchResult of(Verdict v) {
        BatchResult result = new BatchResult(1);
        result.verdict(0, v);
        return result;
    }

    /** The answer of one request whose step failed. */
    static BatchResult failed(RuntimeException e) {
        BatchResult result = new BatchResult(1);
        result.failure(0, e);
        return result;
    }

    /** What a processor answers inside its result rather than throwing: a usage error or a capacity refusal. */
    static boolean isAnswered(Throwable e) {
        return e instanceof RuntimeException r && StepOutcomes.kindOf(r) != StepOutcomes.OTHER_FAILURE;
    }

    @Override
    public void verdict(int index, Verdict v) {
        outcomes.verdict(index, v);
    }

    @Override
    public void failure(int index, RuntimeException e) {
        outcomes.failure(index, e);
    }

    /** Every request of this result failed with {@code e}: none of them was applied. */
    void failAll(RuntimeException e) {
        outcomes.failAll(e);
    }

    @Override
    public int size() {
        return outcomes.size();
    }

    @Override
    public Verdict verdict(int index) {
        return outcomes.verdict(index);
    }

    @Override
    public RuntimeException failure(int index) {
        return outcomes.kind(index) == StepOutcomes.OTHER_FAILURE
                ? new HazelcastException("the decision failed on the partition owner: " + outcomes.message(index))
                : outcomes.failure(index);
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.BATCH_RESULT;
    }

    @Override
    void writeFields(ObjectDataOutput out) throws IOException {
        out.writeInt(outcomes.size());
        for (int i = 0; i < outcomes.size(); i++) {
            byte kind = outcomes.kind(i);
            out.writeByte(kind);
            if (kind == StepOutcomes.VERDICT) {
                Verdict v = outcomes.verdict(i);
                out.writeBoolean(v.granted());
                out.writeLong(v.remaining());
                out.writeLong(v.limit());
                out.writeLong(v.retryAfterMillis());
                out.writeLong(v.resetAfterMillis());
                out.writeLong(v.token());
            } else {
                out.writeString(outcomes.message(i));
            }
        }
    }

    @Override
    void readFields(ObjectDataInput in) throws IOException {
        int size = in.readInt();
        if (size < 0 || size > Coalescing.MAX_BATCH_REQUESTS) {
            throw new IOException("a batch result of " + size + " requests is out of range");
        }
        outcomes = new StepOutcomes(size);
        for (int i = 0; i < size; i++) {
            byte kind = in.readByte();
            if (kind == StepOutcomes.VERDICT) {
                outcomes.verdict(i, Verdict.of(in.readBoolean(), in.readLong(), in.readLong(), in.readLong(),
                        in.readLong(), in.readLong()));
            } else {
                outcomes.failure(i, kind, in.readString());
            }
        }
    }

    @Override
    public String toString() {
        return "BatchResult" + outcomes;
    }
}
