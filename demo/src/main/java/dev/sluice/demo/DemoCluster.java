package dev.sluice.demo;

import java.util.List;
import java.util.Objects;

/**
 * The two app instances of the demo, A and B, in one JVM: two Hazelcast members joined over TCP-IP on
 * the loopback address, each with its own Jetty server. They share nothing but the cluster, exactly as
 * two replicas on two machines would. Closing stops both.
 */
final class DemoCluster implements AutoCloseable {
    private final DemoInstance a;
    private final DemoInstance b;

    private DemoCluster(DemoInstance a, DemoInstance b) {
        this.a = a;
        this.b = b;
    }

    /**
     * Starts A, then B, which joins A. Both list both members, as two replicas configured alike would.
     *
     * @throws Exception if an instance cannot start (a port in use, for example); A is stopped again
     */
    static DemoCluster start(DemoSettings settings) throws Exception {
        Objects.requireNonNull(settings, "settings");
        String bind = settings.bind();
        List<String> members = List.of(bind + ":" + settings.hazelcastPortA(), bind + ":" + settings.hazelcastPortB());
        DemoInstance a = DemoInstance.start("A", DemoInstance.memberConfig(settings.clusterName(), "A", bind,
                settings.hazelcastPortA(), List.of(members.get(0))), bind, settings.httpPortA());
        try {
            DemoInstance b = DemoInstance.start("B", DemoInstance.memberConfig(settings.clusterName(), "B", bind,
                    settings.hazelcastPortB(), members), bind, settings.httpPortB());
            return new DemoCluster(a, b);
        } catch (Exception | Error e) {
            a.close();
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
