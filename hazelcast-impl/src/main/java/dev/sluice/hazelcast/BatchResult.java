package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastException;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.algorithm.StepRunner;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.Outcomes;
import dev.sluice.limiter.store.StepOutcomes;
import java.io.IOException;

/**
 * The answer of the processor that decides ({@link StepProcessor}): the outcomes of the 1 to N requests it
 * ran on one key, in the order they were asked. Each is a verdict, or the exception the step threw for that
 * request alone. A step's own usage errors come back as
 * exactly {@link IllegalArgumentException} or {@link IllegalStateException} with the step's message, so the
 * caller rethrows what a local step would have thrown; anything else as a {@link HazelcastException}.
 *
 * <p>Only failures need the kind and message arrays; a result of verdicts allocates neither.
 */
final class BatchResult extends WireObject implements StepRunner.Results, Outcomes {
    // The kinds on the wire are StepOutcomes' (0 to 4). 5 was a redirect to an overflow cell (cells are now decided
    // in the key's own operation): retired, never reused.

    private Verdict[] verdicts;
    /** Null while every request has a verdict. */
    private byte[] kinds;
    private String[] messages;

    BatchResult() {}

    BatchResult(int size) {
        this.verdicts = new Verdict[size];
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

    /**
     * A step's own rejection of its input, which travels back to the caller inside a result: exactly
     * {@link IllegalArgumentException} or {@link IllegalStateException}, as the runtime's usage errors are.
     */
    static boolean isUsageError(Throwable e) {
        return StepRunner.isUsageError(e);
    }

    /** What a processor answers inside its result rather than throwing: a usage error or a capacity refusal. */
    static boolean isAnswered(Throwable e) {
        return isUsageError(e) || e instanceof CapacityExceededException;
    }

    @Override
    public void verdict(int index, Verdict v) {
        verdicts[index] = v.withoutState();
    }

    /** Every request of this result failed with {@code e}: none of them was applied. */
    void failAll(RuntimeException e) {
        for (int i = 0; i < verdicts.length; i++) {
            failure(i, e);
        }
    }

    @Override
    public void failure(int index, RuntimeException e) {
        byte kind = StepOutcomes.kindOf(e);
        setFailure(index, kind, StepOutcomes.messageOf(e, kind));
    }

    private void setFailure(int index, byte kind, String message) {
        if (kinds == null) {
            kinds = new byte[verdicts.length];
            messages = new String[verdicts.length];
        }
        kinds[index] = kind;
        messages[index] = message;
        verdicts[index] = null;
    }

    @Override
    public int size() {
        return verdicts.length;
    }

    private byte kind(int index) {
        return kinds == null ? StepOutcomes.VERDICT : kinds[index];
    }

    @Override
    public Verdict verdict(int index) {
        return verdicts[index];
    }

    /** A failure of the member itself comes back as a {@link HazelcastException}; a step's own, as it was thrown. */
    @Override
    public RuntimeException failure(int index) {
        byte kind = kind(index);
        if (kind == StepOutcomes.VERDICT) {
            return null;
        }
        return kind == StepOutcomes.OTHER_FAILURE
                ? new HazelcastException("the decision failed on the partition owner: " + messages[index])
                : StepOutcomes.failureOf(kind, messages[index]);
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.BATCH_RESULT;
    }

    @Override
    void writeFields(ObjectDataOutput out) throws IOException {
        out.writeInt(verdicts.length);
        for (int i = 0; i < verdicts.length; i++) {
            byte kind = kind(i);
            out.writeByte(kind);
            if (kind == StepOutcomes.VERDICT) {
                Verdict v = verdicts[i];
                out.writeBoolean(v.granted());
                out.writeLong(v.remaining());
                out.writeLong(v.limit());
                out.writeLong(v.retryAfterMillis());
                out.writeLong(v.resetAfterMillis());
                out.writeLong(v.token());
            } else {
                out.writeString(messages[i]);
            }
        }
    }

    @Override
    void readFields(ObjectDataInput in) throws IOException {
        int size = in.readInt();
        if (size < 0 || size > Coalescing.MAX_BATCH_REQUESTS) {
            throw new IOException("a batch result of " + size + " requests is out of range");
        }
        verdicts = new Verdict[size];
        for (int i = 0; i < size; i++) {
            byte kind = in.readByte();
            if (kind == StepOutcomes.VERDICT) {
                verdicts[i] = Verdict.of(in.readBoolean(), in.readLong(), in.readLong(), in.readLong(),
                        in.readLong(), in.readLong());
            } else {
                setFailure(i, kind, in.readString());
            }
        }
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("BatchResult[");
        for (int i = 0; i < verdicts.length; i++) {
            s.append(i == 0 ? "" : ", ").append(kind(i) == StepOutcomes.VERDICT ? verdicts[i] : failure(i));
        }
        return s.append(']').toString();
    }
}
