package dev.sluice.hazelcast;

import dev.sluice.limiter.algorithm.StoredState;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.logging.Logger;
import com.hazelcast.spi.merge.MergingValue;
import com.hazelcast.spi.merge.SplitBrainMergePolicy;
import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.StateMerge;
import java.util.concurrent.atomic.AtomicBoolean;

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
 * <p>A side whose state has expired by this member's time merges as absent, as every step reads it.
 *
 * <p>Expiry: whichever value is kept, the merged entry lives at least until the merged state's own expiry
 * time: where the members sweep expired entries it gets no expiry at all, as the processors' writes; otherwise
 * the state's time left plus one second (the processors' rule: Hazelcast keeps expiry in whole seconds, rounded
 * down).
 * Hazelcast would otherwise give it the expiry of the entry merged in: after {@code merge} returns it
 * copies the merging entry's expiration onto the record, even when the existing value is kept
 * ({@code DefaultRecordStore.merge}, {@code MergeOpSteps}), and an entry that dies before its state
 * forgets the permits in it (measured: one lease per side of {@code concurrency(2, 20 s)}, the merged
 * entry died 5.1 s before its leases and a third permit was granted). So the policy sets that expiration
 * on the merging entry before returning; the merge's backup copies the primary's. The public merge types
 * only have getters, so this sets it through Hazelcast's internal {@code MapMergingEntryImpl}, which
 * Hazelcast passes for maps ({@link HazelcastInternals#setMergeExpiry}); any other merging value (another
 * structure, a Hazelcast without that path) is merged the same way through the public types but keeps
 * Hazelcast's expiry, with one warning in the member's log.
 *
 * <p>{@link SluiceHazelcast#configure(com.hazelcast.config.Config)} sets this policy on Sluice's maps.
 * It needs only the values, so the maps need no per-entry statistics.
 */
public final class SluiceMergePolicy extends WireObject
        implements SplitBrainMergePolicy<Object, MergingValue<Object>, Object>, HazelcastInstanceAware {
    private static final AtomicBoolean WARNED = new AtomicBoolean();

    /** Injected by Hazelcast before each merge; the state's times are this member's cluster time. */
    private transient volatile HazelcastInstance instance;

    /** Public for declarative configs, which name the policy by its class. */
    public SluiceMergePolicy() {}

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public Object merge(MergingValue<Object> mergingValue, MergingValue<Object> existingValue) {
        long now = StepProcessor.now(instance);
        // A side whose state has expired merges as absent, as a step reads it: its old consumption limits nothing.
        long[] merging = Algorithms.live(asState(HazelcastInternals.valueOf(mergingValue)), now);
        if (existingValue == null) {
            coverExpiry(mergingValue, merging, now);
            return mergingValue.getRawValue();
        }
        long[] existing = Algorithms.live(asState(HazelcastInternals.valueOf(existingValue)), now);
        if (merging == null && existing == null) {
            return existingValue.getRawValue(); // not Sluice state (or none live): keep the value, Hazelcast's expiry rule
        }
        long[] merged = StateMerge.merge(existing, merging);
        coverExpiry(mergingValue, merged, now);
        if (merged == existing) {
            return existingValue.getRawValue();
        }
        if (merged == merging) {
            return mergingValue.getRawValue();
        }
        return StoredState.pack(merged);
    }

    private static long[] asState(Object value) {
        return value instanceof long[] stored ? StoredState.unpack(stored) : null;
    }

    /**
     * Makes the merged record expire no earlier than {@code state}: Hazelcast reads the record's expiry
     * from the merging entry right after {@code merge} returns, and stores a positive expiration time as
     * given. A state that has already expired gets only the slack: it reads as absent anyway.
     */
    private void coverExpiry(MergingValue<Object> mergingValue, long[] state, long now) {
        if (Algorithms.algorithmIdOf(state) < 0) {
            return;
        }
        long left = Math.max(0, Algorithms.expiresAt(state) - now);
        // The processors' rule: no TTL where the members sweep expired entries, else the state's time left plus the
        // slack against whole-second expiry.
        long ttlMillis = SetStateProcessor.entryTtlMillis(instance, Math.min(left, Long.MAX_VALUE / 4));
        if (ttlMillis == SetStateProcessor.NO_TTL) {
            ttlMillis = Long.MAX_VALUE; // a merging entry's TTL and expiration of "never"
        }
        if (!HazelcastInternals.setMergeExpiry(mergingValue, ttlMillis) && WARNED.compareAndSet(false, true)) {
            Logger.getLogger(SluiceMergePolicy.class).warning("Sluice cannot set the expiry of entries merged"
                    + " after a split brain: the merging value is a " + mergingValue.getClass().getName()
                    + ", not Hazelcast's MapMergingEntryImpl, so a merged entry keeps the expiry of the entry merged"
                    + " in and may vanish up to that much before its state (here " + ttlMillis + " ms from now"
                    + " was needed), forgetting the permits it holds. Logged once.");
        }
    }

    @Override
    public int getClassId() {
        return SluiceSerializerFactory.MERGE_POLICY;
    }
}
