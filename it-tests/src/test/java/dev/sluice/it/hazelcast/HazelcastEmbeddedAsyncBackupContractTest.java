package dev.sluice.it.hazelcast;

import dev.sluice.limiter.Coalescing;
import dev.sluice.it.contract.Backend;
import dev.sluice.it.contract.ContractSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract suite on 3 embedded members, every limiter {@code REPLICATED_ASYNC}, coalescing on. */
final class HazelcastEmbeddedAsyncBackupContractTest extends ContractSuite {
    private static Backend backend;

    @BeforeAll
    static void start() {
        backend = AsyncBackupBackends.of(HazelcastBackends.embedded("hazelcast-embedded-async-backup",
                Coalescing.on()));
    }

    @AfterAll
    static void stop() throws Exception {
        if (backend != null) {
            backend.close();
        }
    }

    @Override
    protected Backend backend() {
        return backend;
    }
}
