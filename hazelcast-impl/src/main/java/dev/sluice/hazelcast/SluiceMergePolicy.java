package dev.sluice.hazelcast;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.spi.merge.SplitBrainMergePolicy;
import com.hazelcast.spi.merge.MergingValue;
import dev.sluice.limiter.spi.StateMerge;
import java.io.IOException;

/**
 * Split-brain merge policy for Sluice's maps: when a split cluster heals, each key keeps the state with
 * more consumption ({@link StateMerge}): the same window keeps the higher count, a token bucket the
 * fewer tokens, a concurrency limiter the union of live leases, otherwise the newer state. Hazelcast's
 * built-in policies do not fit a limiter: "latest update" drops one side's usage, "higher hits" counts
 * operations, not permits.
 *
 * <p>While the cluster is split, each side decides alone: each side admits up to the full limit, so a
 * cluster split in two can admit up to twice the limit for the windows that overlap the split. After
 * the merge, no side's grants are forgotten. To refuse instead of over-admitting on a minority side,
 * configure Hazelcast split-brain protection on the maps; its
 * {@code SplitBrainProtectionException} then follows the limiter's failure mode.
 *
 * <p>{@link SluiceHazelcast#configure(com.hazelcast.config.Config)} sets this policy on Sluice's maps.
 * It needs only the values, so the maps need no per-entry statistics. The merged entry keeps the expiry of the entry it replaces; the state's own expiry time still decides
 * when it stops mattering.
 */
public final class SluiceMergePolicy
        implements SplitBrainMergePolicy<Object, MergingValue<Object>, Object>, IdentifiedDataSerializable {

    /** Public for declarative configs, which name the policy by its class. */
    public SluiceMergePolicy() {}

    @Override
    public Object merge(MergingValue<Object> mergingValue, MergingValue<Object> existingValue) {
        if (existingValue == null) {
            return mergingValue.getRawValue();
        }
        long[] merging = asState(mergingValue.getDeserializedValue());
        long[] existing = asState(existingValue.getDeserializedValue());
        if (merging == null && existing == null) {
            return existingValue.getRawValue(); // not Sluice state: leave the entry alone
        }
        long[] merged = StateMerge.merge(existing, merging);
        if (merged == existing) {
            return existingValue.getRawValue();
        }
        if (merged == merging) {
            return mergingValue.getRawValue();
        }
        return merged;
    }

    private static long[] asState(Object value) {
        return value instanceof long[] state ? state : null;
    }

    @Override
    public int getFactoryId() {
        return SluiceSerializerFactory.factoryId();
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.MERGE_POLICY;
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(SluiceSerializerFactory.FORMAT_VERSION);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        SluiceSerializerFactory.checkVersion(in.readByte(), getClass());
    }
}
