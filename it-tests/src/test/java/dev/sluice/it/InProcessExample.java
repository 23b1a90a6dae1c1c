package dev.sluice.it;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.time.Duration;

/** The README's in-process example: run it with the command the README gives. */
public final class InProcessExample {
    private InProcessExample() {}

    public static void main(String[] args) throws Exception {
        try (RateLimiters limiters = LocalRateLimiters.create()) {
            RateLimiter email = limiters.limiter("outbound-email",
                    LimitSpec.tokenBucket(5, 1, Duration.ofSeconds(1)), LimiterOptions.defaults());
            for (int i = 1; i <= 7; i++) {
                try (Lease lease = email.tryAcquire(1)) {
                    System.out.printf("email %d: %s%n", i, lease.isAcquired() ? "sent, " + lease.remaining() + " left"
                            : "refused, retry after " + lease.retryAfter().orElseThrow().toMillis() + " ms");
                }
            }

            PartitionedRateLimiter<String> login = limiters.partitioned("login",
                    LimitSpec.slidingLog(3, Duration.ofMinutes(1)), LimiterOptions.defaults());
            for (String client : new String[] {"alice", "alice", "alice", "alice", "bob"}) {
                Lease lease = login.tryAcquire(client, 1);
                System.out.printf("login %-5s: %s%n", client, lease.isAcquired() ? "allowed" : "429");
            }

            RateLimiter queued = limiters.limiter("queued", LimitSpec.fixedWindow(2, Duration.ofMillis(500)),
                    LimiterOptions.builder().queueLimit(4).build());
            long start = System.nanoTime();
            for (int i = 1; i <= 4; i++) {
                int n = i;
                queued.acquireAsync(1).thenAccept(lease -> System.out.printf("queued %d: %s after %d ms%n", n,
                        lease.isAcquired() ? "granted" : "refused", (System.nanoTime() - start) / 1_000_000));
            }
            Thread.sleep(1_200);
            System.out.println("statistics: " + queued.statistics());
        }
    }
}
