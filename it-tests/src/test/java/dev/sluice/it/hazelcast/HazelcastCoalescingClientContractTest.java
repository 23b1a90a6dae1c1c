package dev.sluice.it.hazelcast;

import dev.sluice.limiter.Coalescing;
import dev.sluice.it.contract.Backend;
import dev.sluice.it.contract.ContractSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The contract suite through a Hazelcast client (and its 3 members), coalescing on. */
final class HazelcastCoalescingClientContractTest extends ContractSuite {
    private static Backend backend;

    @BeforeAll
    static void start() {
        backend = HazelcastBackends.client("hazelcast-coalescing-client", Coalescing.on());
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
