package example.worker;

import com.hazelcast.config.NetworkConfig;
import dev.sluice.spring.RateLimitExceededException;
import dev.sluice.spring.RateLimited;
import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.hazelcast.autoconfigure.HazelcastConfigCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;

/**
 * A worker without a web server: it tries to send a mail for tenant {@code acme} every
 * {@code worker.every-millis}, and the tenant's budget ({@code outbound-email}, application.yml) is shared by
 * every instance of the cluster.
 */
@SpringBootApplication
@EnableScheduling
public class WorkerApp {

    public static void main(String[] args) {
        SpringApplication.run(WorkerApp.class, args);
    }

    /**
     * The member's ports from one property, {@code example.hazelcast-port} (5701 in application.yml): the
     * member takes the first free of that port and the next, and looks for its peer on both, so a second copy
     * of this example beside the first runs with {@code --example.hazelcast-port=5711} and forms a cluster of
     * its own instead of joining this one.
     */
    @Bean
    HazelcastConfigCustomizer memberPorts(@Value("${example.hazelcast-port}") int port) {
        return config -> {
            NetworkConfig network = config.getNetworkConfig().setPort(port).setPortAutoIncrement(true).setPortCount(2);
            network.getJoin().getTcpIpConfig().setMembers(List.of("127.0.0.1:" + port, "127.0.0.1:" + (port + 1)));
        };
    }

    @Service
    public static class Mailer {
        // #p0 is the first parameter, with or without -parameters; #tenant would need -parameters.
        @RateLimited(policy = "outbound-email", key = "'tenant:' + #p0")
        public void send(String tenant) {
            // a real worker sends the mail here
        }
    }

    @Component
    static class Loop {
        private static final Log LOG = LogFactory.getLog(Loop.class);
        private final Mailer mailer;

        Loop(Mailer mailer) {
            this.mailer = mailer;
        }

        // The first mail after one period too, so a test that sets a long one has the budget to itself.
        @Scheduled(fixedDelayString = "${worker.every-millis}", initialDelayString = "${worker.every-millis}")
        void tick() {
            try {
                mailer.send("acme");
                LOG.info("sent a mail for acme");
            } catch (RateLimitExceededException e) {
                LOG.info("refused a mail for acme by " + e.policy() + "; retry after "
                        + e.lease().retryAfter().orElse(null));
            }
        }
    }
}
