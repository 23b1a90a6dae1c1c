package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastException;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.limiter.algorithm.Verdict;
import java.io.IOException;

/**
 * The outcomes of the requests a {@link BatchProcessor} decided on one key, in the order they were asked:
 * each a verdict, or the exception the step threw for that request alone. A step's own usage errors
 * come back as exactly {@link IllegalArgumentException} or {@link IllegalStateException}, as they would
 * from a one-request {@link StepProcessor}; anything else as a {@link HazelcastException}.
 */
final class BatchResult implements IdentifiedDataSerializable {
    static final byte VERDICT = 0;
    static final byte ILLEGAL_ARGUMENT = 1;
    static final byte ILLEGAL_STATE = 2;
    static final byte OTHER_FAILURE = 3;

    private byte[] kinds;
    private Verdict[] verdicts;
    private String[] messages;

    BatchResult() {}

    BatchResult(int size) {
        this.kinds = new byte[size];
        this.verdicts = new Verdict[size];
        this.messages = new String[size];
    }

    void verdict(int index, Verdict v) {
        kinds[index] = VERDICT;
        verdicts[index] = Verdict.of(v.granted(), v.remaining(), v.limit(), v.retryAfterMillis(),
                v.resetAfterMillis(), v.token());
    }

    void failure(int index, RuntimeException e) {
        Class<?> type = e.getClass();
        kinds[index] = type == IllegalArgumentException.class ? ILLEGAL_ARGUMENT
                : type == IllegalStateException.class ? ILLEGAL_STATE : OTHER_FAILURE;
        messages[index] = kinds[index] == OTHER_FAILURE ? String.valueOf(e) : e.getMessage();
    }

    int size() {
        return kinds.length;
    }

    /** The verdict of request {@code index}. */
    Verdict verdict(int index) {
        return verdicts[index];
    }

    /** The failure of request {@code index}, or {@code null} when it has a verdict. */
    RuntimeException failure(int index) {
        switch (kinds[index]) {
            case VERDICT: return null;
            case ILLEGAL_ARGUMENT: return new IllegalArgumentException(messages[index]);
            case ILLEGAL_STATE: return new IllegalStateException(messages[index]);
            default: return new HazelcastException("the decision failed on the partition owner: " + messages[index]);
        }
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerFactory.factoryId();
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.BATCH_RESULT;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(SluiceSerializerFactory.FORMAT_VERSION);
        out.writeInt(kinds.length);
        for (int i = 0; i < kinds.length; i++) {
            out.writeByte(kinds[i]);
            if (kinds[i] == VERDICT) {
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
    public void readData(ObjectDataInput in) throws IOException {
        SluiceSerializerFactory.checkVersion(in.readByte(), getClass());
        int size = in.readInt();
        if (size < 0 || size > BatchProcessor.MAX_REQUESTS_ON_WIRE) {
            throw new IOException("a batch result of " + size + " requests is out of range");
        }
        kinds = new byte[size];
        verdicts = new Verdict[size];
        messages = new String[size];
        for (int i = 0; i < size; i++) {
            kinds[i] = in.readByte();
            if (kinds[i] == VERDICT) {
                verdicts[i] = Verdict.of(in.readBoolean(), in.readLong(), in.readLong(), in.readLong(),
                        in.readLong(), in.readLong());
            } else {
                messages[i] = in.readString();
            }
        }
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("BatchResult[");
        for (int i = 0; i < kinds.length; i++) {
            s.append(i == 0 ? "" : ", ").append(kinds[i] == VERDICT ? verdicts[i] : failure(i));
        }
        return s.append(']').toString();
    }
}
