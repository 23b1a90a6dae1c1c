package dev.sluice.hazelcast;

import com.hazelcast.spi.merge.MergingValue;

/**
 * A merging value that is not a map's merging entry, as another structure's would be. Both names of its value
 * are implemented, without {@code @Override}: Hazelcast 5.3 has only {@code getValue()}, later releases add
 * {@code getDeserializedValue()}, so this compiles on every supported release.
 */
final class TestMergingValue implements MergingValue<Object> {
    private final Object value;

    TestMergingValue(Object value) {
        this.value = value;
    }

    public Object getDeserializedValue() {
        return value;
    }

    @SuppressWarnings("deprecation")
    public Object getValue() {
        return value;
    }

    @Override
    public Object getRawValue() {
        return value;
    }
}
