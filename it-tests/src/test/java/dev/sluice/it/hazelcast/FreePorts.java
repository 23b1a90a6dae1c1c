package dev.sluice.it.hazelcast;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ports the system reports free on 127.0.0.1, so that a test never depends on a fixed range that a second
 * build, another test JVM or a user's own server may hold. The sockets of one call are open together, so its
 * ports differ; a port is handed out once per JVM, so two clusters of one run never share one.
 */
public final class FreePorts {
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

    private FreePorts() {}

    /** {@code n} distinct ports, free when this returns. */
    public static int[] take(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; ) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                if (GIVEN.add(socket.getLocalPort())) {
                    ports[i++] = socket.getLocalPort();
                }
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // closing a listening socket that accepted nothing cannot lose anything
                }
            }
        }
    }

    /** One port, free when this returns. */
    public static int take() {
        return take(1)[0];
    }

    /** {@code 127.0.0.1:port} for each port, in order. */
    public static List<String> addresses(int... ports) {
        List<String> addresses = new ArrayList<>();
        for (int port : ports) {
            addresses.add("127.0.0.1:" + port);
        }
        return addresses;
    }
}
