package dev.sluice.test.spring.hazelcastapp;

import com.hazelcast.config.Config;
import dev.sluice.spring.RateLimited;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.UUID;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Service;

/**
 * An application without a web server whose configured backend is Boot's Hazelcast member (from its
 * {@link Config} bean: a cluster of its own, on a port the system reports free, joining no one), with one
 * {@link RateLimited} method.
 */
@SpringBootApplication
public class HazelcastApp {

    @Bean
    public Config hazelcastConfig() {
        Config config = new Config().setClusterName("sluice-test-kit-" + UUID.randomUUID());
        config.getNetworkConfig().setPort(freePort()).setPortAutoIncrement(false).getInterfaces().setEnabled(true)
                .addInterface("127.0.0.1");
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
        return config;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }

    @Service
    public static class Reports {
        @RateLimited(policy = "reports")
        public String build(String id) {
            return "report " + id;
        }
    }
}
