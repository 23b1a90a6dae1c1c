package dev.sluice.it.hazelcast;

import dev.sluice.limiter.Coalescing;
import dev.sluice.it.contract.Backend;
import dev.sluice.it.contract.ContractSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract suite on a Hazelcast client (and its 3 members), every limiter {@code REPLICATED_ASYNC}, coalescing on. */
final class HazelcastClientAsyncBackupContractTest extends ContractSuite {
    private static Backend backend;

    @BeforeAll
    static void start() {
        backend = AsyncBackupBackends.of(HazelcastBackends.client("hazelcast-client-async-backup",
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
