package dev.sluice.it.hazelcast;

import dev.sluice.limiter.Coalescing;
import dev.sluice.it.contract.Backend;
import dev.sluice.it.contract.ContractSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract suite on 3 embedded members, one replica each, coalescing off. */
final class HazelcastEmbeddedContractTest extends ContractSuite {
    private static Backend backend;

    @BeforeAll
    static void start() {
        backend = HazelcastBackends.embedded("hazelcast-embedded", Coalescing.disabled());
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
