package dev.sluice.hazelcast;

import dev.sluice.limiter.algorithm.StoredState;
import com.hazelcast.map.ExtendedMapEntry;
import java.util.concurrent.TimeUnit;

/** An in-memory map entry that records the TTL it was given, as Hazelcast's entry does. */
final class TestEntry implements ExtendedMapEntry<String, long[]> {
    final String key;
    long[] value;
    long ttlMillis = -1;
    int writes;

    TestEntry(String key, long[] value) {
        this.key = key;
        this.value = value;
    }

    /** The state words of what was stored (Sluice's maps keep states packed: {@link StoredState}). */
    long[] state() {
        return StoredState.unpack(value);
    }

    @Override public String getKey() { return key; }
    @Override public long[] getValue() { return value; }

    @Override
    public long[] setValue(long[] v) {
        long[] old = value;
        value = v;
        ttlMillis = -1;
        writes++;
        return old;
    }

    @Override
    public long[] setValue(long[] v, long ttl, TimeUnit unit) {
        long[] old = setValue(v);
        ttlMillis = unit.toMillis(ttl);
        return old;
    }

    @Override
    public long[] setValueWithoutChangingExpiryTime(long[] v) {
        return setValue(v);
    }
}
