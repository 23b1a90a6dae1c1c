package dev.sluice.demo;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.hazelcast.SluiceHazelcast;
import dev.sluice.hazelcast.SluiceMember;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * One app instance: an embedded Hazelcast member, the limiters on it, and a Jetty 12 server whose only
 * servlet sits behind {@link RateLimitFilter}. Instances share nothing but the cluster. Closing stops the
 * server first, then the member.
 */
final class DemoInstance implements AutoCloseable {
    private final String name;
    private final HazelcastInstance member;
    private final RateLimiters limiters;
    private final Server server;
    private final ServerConnector connector;

    private DemoInstance(String name, HazelcastInstance member, RateLimiters limiters, Server server,
            ServerConnector connector) {
        this.name = name;
        this.member = member;
        this.limiters = limiters;
        this.server = server;
        this.connector = connector;
    }

    /**
     * The member config of an instance: TCP-IP join with {@code members}, listening on {@code bind} only
     * (not on every interface), no multicast, no phone home, 71 partitions, no Hazelcast shutdown hook (the demo stops its members itself), Hazelcast logging through
     * SLF4J unless the system property {@code hazelcast.logging.type} says otherwise (quiet: see
     * {@code jetty-logging.properties}), Sluice's maps and serialization.
     */
    static Config memberConfig(String clusterName, String instanceName, String bind, int port, List<String> members) {
        Config config = SluiceMember.loopbackConfig(clusterName, bind, port, members);
        config.setInstanceName(clusterName + "-" + instanceName);
        if (System.getProperty("hazelcast.logging.type") == null) {
            config.setProperty("hazelcast.logging.type", "slf4j");
        }
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.setProperty("hazelcast.partition.count", "71");
        config.setProperty("hazelcast.socket.bind.any", "false");
        return SluiceHazelcast.configure(config);
    }

    /**
     * Starts the HTTP server of an instance on {@code bind:httpPort} (0 for a free port) in front of the
     * limiters of {@code member}, a started member. The instance owns the member once this returns; on
     * failure the member is left running, for the caller to shut down.
     *
     * @throws Exception if the server cannot start (a port in use, for example)
     */
    static DemoInstance start(String name, HazelcastInstance member, String bind, int httpPort) throws Exception {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(member, "member");
        RateLimiters limiters = null;
        Server server = null;
        try {
            limiters = HazelcastRateLimiters.create(member);
            QueuedThreadPool threads = new QueuedThreadPool(32, 2);
            threads.setName("demo-" + name + "-http");
            server = new Server(threads);
            ServerConnector connector = new ServerConnector(server, 1, 1);
            connector.setHost(bind);
            connector.setPort(httpPort);
            server.addConnector(connector);
            ServletContextHandler context = new ServletContextHandler();
            context.setContextPath("/");
            FilterHolder filter = new FilterHolder(new RateLimitFilter(limiters, DemoPolicies.filterConfig()));
            filter.setAsyncSupported(true);
            context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
            String address = member.getCluster().getLocalMember().getAddress().toString();
            context.addServlet(new ServletHolder(new DemoServlet(name, address)), "/*");
            server.setHandler(context);
            server.start();
            return new DemoInstance(name, member, limiters, server, connector);
        } catch (Exception | Error e) {
            stopQuietly(server, e);
            if (limiters != null) {
                limiters.close();
            }
            throw e;
        }
    }

    /** The instance's name, {@code A} or {@code B}. */
    String name() {
        return name;
    }

    /** The Hazelcast member. */
    HazelcastInstance member() {
        return member;
    }

    /** The HTTP port the server listens on (the actual one when 0 was asked for). */
    int httpPort() {
        return connector.getLocalPort();
    }

    /** {@code http://<bind>:<port>}. */
    URI baseUri() {
        String host = connector.getHost();
        return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + httpPort());
    }

    /** Stops the HTTP server, closes the limiters and shuts the member down. Idempotent. */
    @Override
    public void close() {
        try {
            stopQuietly(server, null);
        } finally {
            try {
                limiters.close();
            } finally {
                member.shutdown();
            }
        }
    }

    private static void stopQuietly(Server server, Throwable cause) {
        if (server == null) {
            return;
        }
        try {
            server.stop();
        } catch (Exception e) {
            if (cause != null) {
                cause.addSuppressed(e);
            } else {
                throw new IllegalStateException("could not stop the HTTP server", e);
            }
        }
    }
}
