package dev.sluice.it.hazelcast;

import dev.sluice.hazelcast.HazelcastCoalescing;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.it.contract.Backend;
import dev.sluice.it.contract.ContractSuite;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coalescing off. The contract suite through a Hazelcast client: the client is the first replica (every single-replica
 * test runs through it); the 3 members follow, so the exactness test spreads over 3 members and 1 client.
 */
final class HazelcastClientContractTest extends ContractSuite {
    private static TestCluster cluster;
    private static Backend backend;

    @BeforeAll
    static void start() {
        ManualClock clock = new ManualClock();
        cluster = TestCluster.start("sluice-client", 5911, 3, clock);
        List<RateLimiters> replicas = new ArrayList<>();
        replicas.add(HazelcastRateLimiters.create(cluster.addClient(SluiceHazelcast.configure(cluster.clientConfig())),
                HazelcastCoalescing.disabled()));
        cluster.members.stream().map(hz -> HazelcastRateLimiters.create(hz, HazelcastCoalescing.disabled()))
                .forEach(replicas::add);
        backend = new Backend() {
            @Override public String name() { return "hazelcast-client"; }
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
