package dev.sluice.it.hazelcast;

import dev.sluice.limiter.Coalescing;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.it.contract.Backend;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.ManualClock;
import java.util.ArrayList;
import java.util.List;

/** The Hazelcast set-ups the contract suite runs on: 3 embedded members, or a client and those members. */
final class HazelcastBackends {
    private HazelcastBackends() {}

    /** One replica per member of a 3-member cluster; closing the backend closes the cluster. */
    static Backend embedded(String name, Coalescing coalescing) {
        ManualClock clock = new ManualClock();
        TestCluster cluster = TestCluster.start(name, 3, clock);
        List<RateLimiters> replicas = new ArrayList<>();
        cluster.members.forEach(hz -> replicas.add(HazelcastRateLimiters.create(hz, coalescing)));
        return backend(name, clock, cluster, replicas);
    }

    /** {@link #embedded(String, Coalescing)}; {@code basePort} is ignored (ports are free ones). */
    static Backend embedded(String name, int basePort, Coalescing coalescing) {
        return embedded(name, coalescing);
    }

    /** {@link #client(String, Coalescing)}; {@code basePort} is ignored (ports are free ones). */
    static Backend client(String name, int basePort, Coalescing coalescing) {
        return client(name, coalescing);
    }

    /**
     * The client first (every single-replica test runs through it), then the 3 members, so the exactness
     * test spreads over 3 members and 1 client.
     */
    static Backend client(String name, Coalescing coalescing) {
        ManualClock clock = new ManualClock();
        TestCluster cluster = TestCluster.start(name, 3, clock);
        List<RateLimiters> replicas = new ArrayList<>();
        replicas.add(HazelcastRateLimiters.create(cluster.addClient(SluiceHazelcast.configure(cluster.clientConfig())),
                coalescing));
        cluster.members.forEach(hz -> replicas.add(HazelcastRateLimiters.create(hz, coalescing)));
        return backend(name, clock, cluster, replicas);
    }

    private static Backend backend(String name, ManualClock clock, TestCluster cluster, List<RateLimiters> replicas) {
        return new Backend() {
            @Override public String name() { return name; }
            @Override public ManualClock clock() { return clock; }
            @Override public List<RateLimiters> replicas() { return replicas; }

            @Override
            public void close() {
                replicas.forEach(RateLimiters::close);
                cluster.close();
            }
        };
    }
}
