package dev.sluice.hazelcast;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import dev.sluice.limiter.algorithm.Verdict;
import java.io.IOException;

/** The decision fields of a {@link Verdict}, as sent from the partition owner back to the caller. */
final class WireVerdict implements IdentifiedDataSerializable {
    private boolean granted;
    private long remaining;
    private long limit;
    private long retryAfterMillis;
    private long resetAfterMillis;
    private long token;

    WireVerdict() {}

    WireVerdict(Verdict v) {
        this.granted = v.granted();
        this.remaining = v.remaining();
        this.limit = v.limit();
        this.retryAfterMillis = v.retryAfterMillis();
        this.resetAfterMillis = v.resetAfterMillis();
        this.token = v.token();
    }

    Verdict toVerdict() {
        return Verdict.of(granted, remaining, limit, retryAfterMillis, resetAfterMillis, token);
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerFactory.factoryId();
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.VERDICT;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(SluiceSerializerFactory.FORMAT_VERSION);
        out.writeBoolean(granted);
        out.writeLong(remaining);
        out.writeLong(limit);
        out.writeLong(retryAfterMillis);
        out.writeLong(resetAfterMillis);
        out.writeLong(token);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        SluiceSerializerFactory.checkVersion(in.readByte(), getClass());
        granted = in.readBoolean();
        remaining = in.readLong();
        limit = in.readLong();
        retryAfterMillis = in.readLong();
        resetAfterMillis = in.readLong();
        token = in.readLong();
    }

    @Override
    public String toString() {
        return toVerdict().toString();
    }
}
