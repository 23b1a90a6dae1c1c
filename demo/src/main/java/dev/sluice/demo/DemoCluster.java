package dev.sluice.demo;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.util.List;
import java.util.Objects;

/**
 * The two app instances of the demo, A and B, in one JVM: two Hazelcast members joined over TCP-IP on
 * the loopback address (A lists itself, B lists A and itself, so A never waits for B), each with its own
 * Jetty server. They share nothing but the cluster, exactly as two replicas on two machines would.
 * Closing stops both.
 */
final class DemoCluster implements AutoCloseable {
    private final DemoInstance a;
    private final DemoInstance b;

    private DemoCluster(DemoInstance a, DemoInstance b) {
        this.a = a;
        this.b = b;
    }

    /**
     * Starts member A, then member B, which joins A; then the limiters and HTTP servers. The members
     * start first so the partition table is laid out once over both, rather than migrated to B while it
     * is still starting.
     *
     * @throws Exception if an instance cannot start (a port in use, for example); whatever started is stopped
     * @throws IllegalStateException if B formed a cluster of its own instead of joining A
     */
    static DemoCluster start(DemoSettings settings) throws Exception {
        Objects.requireNonNull(settings, "settings");
        String bind = settings.bind();
        String addressA = bind + ":" + settings.hazelcastPortA();
        String addressB = bind + ":" + settings.hazelcastPortB();
        HazelcastInstance memberA = Hazelcast.newHazelcastInstance(DemoInstance.memberConfig(settings.clusterName(),
                "A", bind, settings.hazelcastPortA(), List.of(addressA)));
        HazelcastInstance memberB;
        try {
            memberB = Hazelcast.newHazelcastInstance(DemoInstance.memberConfig(settings.clusterName(), "B", bind,
                    settings.hazelcastPortB(), List.of(addressA, addressB)));
        } catch (RuntimeException | Error e) {
            memberA.shutdown();
            throw e;
        }
        if (memberB.getCluster().getMembers().size() != 2) {
            memberB.shutdown();
            memberA.shutdown();
            throw new IllegalStateException("member B (" + addressB + ") did not join member A (" + addressA
                    + ") in cluster '" + settings.clusterName() + "'");
        }
        DemoInstance a = null;
        try {
            a = DemoInstance.start("A", memberA, bind, settings.httpPortA());
            return new DemoCluster(a, DemoInstance.start("B", memberB, bind, settings.httpPortB()));
        } catch (Exception | Error e) {
            memberB.shutdown(); // B first, so that it does not warn about losing A
            if (a != null) {
                a.close();
            } else {
                memberA.shutdown();
            }
            throw e;
        }
    }

    /** Instance A. */
    DemoInstance a() {
        return a;
    }

    /** Instance B. */
    DemoInstance b() {
        return b;
    }

    /** Stops B, then A. */
    @Override
    public void close() {
        try {
            b.close();
        } finally {
            a.close();
        }
    }
}
