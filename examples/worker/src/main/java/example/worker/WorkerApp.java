package example.worker;

import dev.sluice.spring.RateLimitExceededException;
import dev.sluice.spring.RateLimited;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
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

        @Scheduled(fixedDelayString = "${worker.every-millis}")
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
