package dev.sluice.hazelcast;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.query.Predicate;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.StoredState;
import java.io.IOException;
import java.util.Map;

/**
 * Selects the entries whose Sluice state stopped mattering by a given time ({@link Algorithms#isExpired}): what
 * {@link ExpirySweep} removes. The time is fixed when the sweep builds the predicate, on the partition's owner, and
 * travels with it, so the backup replica, which evaluates the same predicate on its copy, selects the same entries.
 * Values that are not Sluice state, or that cannot be read, are never selected.
 */
final class ExpiredEntries extends WireObject implements Predicate<String, long[]> {
    private long atMillis;

    ExpiredEntries() {}

    ExpiredEntries(long atMillis) {
        this.atMillis = atMillis;
    }

    @Override
    public boolean apply(Map.Entry<String, long[]> entry) {
        Object value = entry.getValue();
        if (!(value instanceof long[] stored)) {
            return false;
        }
        try {
            return Algorithms.isExpired(StoredState.unpack(stored), atMillis);
        } catch (IllegalStateException malformed) {
            return false; // a step refuses it with its message; a sweep leaves it for someone to read
        }
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.EXPIRED_ENTRIES;
    }

    @Override
    void writeFields(ObjectDataOutput out) throws IOException {
        out.writeLong(atMillis);
    }

    @Override
    void readFields(ObjectDataInput in) throws IOException {
        atMillis = in.readLong();
    }

    @Override
    public String toString() {
        return "ExpiredEntries[at=" + atMillis + "]";
    }
}
