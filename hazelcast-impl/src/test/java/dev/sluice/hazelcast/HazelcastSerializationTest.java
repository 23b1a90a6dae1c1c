package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.MapConfig;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import com.hazelcast.nio.serialization.DataSerializableFactory;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.store.StepRequest;
import dev.sluice.limiter.algorithm.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every wire class survives Hazelcast serialization; without the factory, reading fails loudly. */
final class HazelcastSerializationTest {
    private static final InternalSerializationService WITH_FACTORY = new DefaultSerializationServiceBuilder()
            .addDataSerializableFactory(SluiceSerializerFactory.factoryId(), new SluiceSerializerFactory()).build();
    private static final InternalSerializationService WITHOUT_FACTORY = new DefaultSerializationServiceBuilder().build();

    @SuppressWarnings("unchecked")
    private static <T> T roundTrip(T value) {
        Data data = WITH_FACTORY.toData(value);
        return (T) WITH_FACTORY.toObject(data);
    }

    @Test
    void stepProcessor_roundTrips() {
        LimitSpec spec = LimitSpec.slidingWindow(9, Duration.ofSeconds(6), 3);
        StepProcessor back = roundTrip(new StepProcessor(new StepRequest("k", spec, Op.RENEW, 0, 42,
                Durability.EPHEMERAL)));
        assertEquals(spec, back.spec());
        assertEquals(new StepProcessor(new StepRequest("k", spec, Op.RENEW, 0, 42, Durability.EPHEMERAL)).toString(),
                back.toString());
    }

    @Test
    void setStateProcessor_roundTrips_includingRemoval() {
        SetStateProcessor<Object> back = roundTrip(new SetStateProcessor<>(new long[] {1, 2, 3}, 1234));
        assertArrayEquals(new long[] {1, 2, 3}, back.state());
        assertEquals(1234, back.ttlMillis());
        SetStateProcessor<Object> removal = roundTrip(new SetStateProcessor<>(null, 0));
        assertNull(removal.state());
    }

    @Test
    void verdict_roundTrips() {
        Verdict verdict = Verdict.of(false, 3, 10, 250, 900, 77);
        assertEquals(verdict, roundTrip(BatchResult.of(verdict)).verdict(0));
    }

    @Test
    void probeAndMergePolicy_roundTrip() {
        assertTrue(roundTrip(new ProbeProcessor()) instanceof ProbeProcessor);
        assertTrue(roundTrip(new SluiceMergePolicy()) instanceof SluiceMergePolicy);
    }

    @Test
    void state_isAPlainLongArray() {
        long[] state = {0x51CEL << 48, 5, 6, 7};
        assertArrayEquals(state, roundTrip(state));
    }

    @Test
    void withoutFactory_readingFailsInsteadOfMisreading() {
        Data data = WITH_FACTORY.toData(BatchResult.of(Verdict.of(true, 1, 2, -1, 0, 0)));
        HazelcastSerializationException e = assertThrows(HazelcastSerializationException.class,
                () -> WITHOUT_FACTORY.toObject(data));
        assertTrue(e.getMessage().contains(Integer.toString(SluiceSerializerFactory.factoryId())), e.getMessage());
    }

    @Test
    void unknownFormatVersion_failsNamingTheVersion() {
        byte[] bytes = WITH_FACTORY.toData(BatchResult.of(Verdict.of(true, 1, 2, -1, 0, 0))).toByteArray();
        // Data layout: partition hash (4), type id (4), then the IDS header (flag, factory id, class id), then fields.
        int versionAt = 8 + 1 + 4 + 4;
        assertEquals(SluiceSerializerFactory.FORMAT_VERSION, bytes[versionAt]);
        bytes[versionAt] = 9;
        Data tampered = new com.hazelcast.internal.serialization.impl.HeapData(bytes);
        HazelcastSerializationException e = assertThrows(HazelcastSerializationException.class,
                () -> WITH_FACTORY.toObject(tampered));
        assertTrue(String.valueOf(e.getMessage()).contains("format 9") || String.valueOf(e.getCause()).contains("format 9"),
                e.toString());
    }

    @Test
    void configure_registersFactoryAndMaps() {
        Config config = SluiceHazelcast.configure(new Config());
        assertTrue(config.getSerializationConfig().getDataSerializableFactories()
                .get(SluiceSerializerFactory.factoryId()) instanceof SluiceSerializerFactory);
        MapConfig replicated = config.getMapConfig("sluice");
        assertEquals(1, replicated.getBackupCount());
        assertEquals(InMemoryFormat.OBJECT, replicated.getInMemoryFormat());
        assertEquals(SluiceMergePolicy.class.getName(), replicated.getMergePolicyConfig().getPolicy());
        assertEquals(0, replicated.getAsyncBackupCount());
        assertEquals(0, config.getMapConfig("sluice-ephemeral").getBackupCount());
        assertEquals(0, config.getMapConfig("sluice-ephemeral").getAsyncBackupCount());
        MapConfig asyncBackup = config.getMapConfig("sluice-async-backup");
        assertEquals(0, asyncBackup.getBackupCount(), "no synchronous backup: nothing waits for an ack");
        assertEquals(1, asyncBackup.getAsyncBackupCount());
        assertEquals(InMemoryFormat.OBJECT, asyncBackup.getInMemoryFormat());
        assertEquals(SluiceMergePolicy.class.getName(), asyncBackup.getMergePolicyConfig().getPolicy());
        SluiceHazelcast.configure(config); // idempotent
    }

    @Test
    void configure_factoryIdTaken_failsNamingBothClasses() {
        Config config = new Config();
        DataSerializableFactory other = id -> null;
        config.getSerializationConfig().addDataSerializableFactory(SluiceSerializerFactory.factoryId(), other);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SluiceHazelcast.configure(config));
        assertTrue(e.getMessage().contains(other.getClass().getName())
                && e.getMessage().contains(SluiceSerializerFactory.class.getName())
                && e.getMessage().contains(SluiceSerializerFactory.FACTORY_ID_PROPERTY), e.getMessage());
    }
}
