package dev.sluice.hazelcast;

import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import java.io.IOException;

/**
 * The one {@link DataSerializableFactory} for every Sluice class that crosses the wire: processors, the
 * backup processors, the answer and the merge policy. State itself is a plain {@code long[]}, which
 * Hazelcast serializes natively.
 *
 * <p>The factory id is {@value #DEFAULT_FACTORY_ID} unless the system property
 * {@value #FACTORY_ID_PROPERTY} says otherwise; it is read once, and members and clients must agree on
 * it. Class ids are listed here and never reused: a retired class keeps its id reserved. Every wire class
 * starts with {@link #FORMAT_VERSION}, so a member and a caller of incompatible Sluice versions fail
 * with a message instead of misreading each other.
 *
 * <p>{@link SluiceHazelcast#configure(com.hazelcast.config.Config)} registers this factory. In a
 * declarative member config:
 * <pre>{@code
 * hazelcast:
 *   serialization:
 *     data-serializable-factories:
 *       - factory-id: 20942
 *         class-name: dev.sluice.hazelcast.SluiceSerializerFactory
 * }</pre>
 */
public final class SluiceSerializerFactory implements DataSerializableFactory {
    /** The factory id used unless {@value #FACTORY_ID_PROPERTY} is set: {@code 0x51CE}. */
    public static final int DEFAULT_FACTORY_ID = 0x51CE;
    /** System property that overrides the factory id (an int), for clusters where the default is taken. */
    public static final String FACTORY_ID_PROPERTY = "sluice.hazelcast.factoryId";
    /**
     * Version of the wire format, written first by every wire class. 2: a step carries its request's words
     * and answers a {@link BatchResult}, which carries a step's usage error. 3: a step carries 1 to N
     * requests of one key; the multi-key batch and its backup are retired.
     */
    static final byte FORMAT_VERSION = 3;

    static final int STEP = 1;
    static final int SET_STATE = 2;
    /** Retired: the verdict of format 1 (a step's answer is a {@link BatchResult} since format 2). */
    static final int RETIRED_VERDICT = 3;
    static final int PROBE = 4;
    static final int MERGE_POLICY = 5;
    /** Retired: the multi-key batch of format 2 (a {@link StepProcessor} carries a key's batch since format 3). */
    static final int RETIRED_BATCH = 6;
    /** Retired: the multi-key batch's backup of format 2 (a batch's backup is a {@link SetStateProcessor}). */
    static final int RETIRED_BATCH_BACKUP = 7;
    static final int BATCH_RESULT = 8;
    /** The backup that runs a batch again on a large state ({@link ReplayProcessor}). */
    static final int REPLAY = 9;
    /** The primary's state sent to a backup whose copy diverged ({@link ResendProcessor}). */
    static final int RESEND = 10;
    /** {@link CellBackupProcessor}. */
    static final int CELL_BACKUP = 11;
    /** The predicate of the sweep of idle entries ({@link ExpiredEntries}). */
    static final int EXPIRED_ENTRIES = 12;

    private static final int FACTORY_ID = Integer.getInteger(FACTORY_ID_PROPERTY, DEFAULT_FACTORY_ID);

    /** The factory id in use (the system property's value, read once, or the default). */
    public static int factoryId() {
        return FACTORY_ID;
    }

    /** Public for declarative configs, which instantiate the factory by its class name. */
    public SluiceSerializerFactory() {}

    @Override
    public IdentifiedDataSerializable create(int classId) {
        switch (classId) {
            case STEP: return new StepProcessor();
            case SET_STATE: return new SetStateProcessor<>();
            case PROBE: return new ProbeProcessor();
            case MERGE_POLICY: return new SluiceMergePolicy();
            case BATCH_RESULT: return new BatchResult();
            case REPLAY: return new ReplayProcessor<>();
            case RESEND: return new ResendProcessor();
            case CELL_BACKUP: return new CellBackupProcessor();
            case EXPIRED_ENTRIES: return new ExpiredEntries();
            default: return null; // Hazelcast reports the unknown class id with the factory id
        }
    }

    static void checkVersion(byte version, Class<?> type) throws IOException {
        if (version != FORMAT_VERSION) {
            throw new IOException("Sluice wire format " + version + " of " + type.getSimpleName()
                    + " is not supported by this member or client (format " + FORMAT_VERSION
                    + "); run the same dev.sluice:hazelcast-impl version on members and clients");
        }
    }

    @Override
    public String toString() {
        return "SluiceSerializerFactory[id=" + FACTORY_ID + "]";
    }
}
