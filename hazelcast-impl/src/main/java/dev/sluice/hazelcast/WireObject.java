package dev.sluice.hazelcast;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;

/**
 * What every Sluice wire class shares: {@link SluiceSerializerFactory}'s factory id, and the
 * {@link SluiceSerializerFactory#FORMAT_VERSION} written before its own fields and checked before they are
 * read, so a member and a caller of incompatible Sluice versions fail with a message instead of misreading
 * each other. A subclass names its class id and writes and reads its fields.
 */
abstract class WireObject implements IdentifiedDataSerializable {
    @Override
    public final int getFactoryId() {
        return SluiceSerializerFactory.factoryId();
    }

    @Override
    public final void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(SluiceSerializerFactory.FORMAT_VERSION);
        writeFields(out);
    }

    @Override
    public final void readData(ObjectDataInput in) throws IOException {
        SluiceSerializerFactory.checkVersion(in.readByte(), getClass());
        readFields(in);
    }

    /** Writes this object's fields, after the format version; none unless overridden. */
    void writeFields(ObjectDataOutput out) throws IOException {}

    /** Reads what {@link #writeFields} wrote. */
    void readFields(ObjectDataInput in) throws IOException {}
}
