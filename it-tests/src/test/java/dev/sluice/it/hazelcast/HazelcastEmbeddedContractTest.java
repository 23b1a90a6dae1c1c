package dev.sluice.it.hazelcast;

import dev.sluice.hazelcast.HazelcastCoalescing;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.it.contract.Backend;
import dev.sluice.it.contract.ContractSuite;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** Coalescing off. The contract suite on a 3-member embedded cluster: one replica per member. */
final class HazelcastEmbeddedContractTest extends ContractSuite {
    private static TestCluster cluster;
    private static Backend backend;

    @BeforeAll
    static void start() {
        ManualClock clock = new ManualClock();
        cluster = TestCluster.start("sluice-embedded", 5901, 3, clock);
        List<RateLimiters> replicas = cluster.members.stream()
                .map(hz -> HazelcastRateLimiters.create(hz, HazelcastCoalescing.disabled())).toList();
        backend = new Backend() {
            @Override public String name() { return "hazelcast-embedded"; }
            @Override public ManualClock clock() { return clock; }
            @Override public List<RateLimiters> replicas() { return replicas; }
            @Override public void close() { replicas.forEach(RateLimiters::close); }
        };
    }

    @AfterAll
    static void stop() throws Exception {
        if (backend != null) {
            backend.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected Backend backend() {
        return backend;
    }
}
