package dev.sluice.benchmarks;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Sluice through its public API, on any backend: a {@link RateLimiter} for the hot key (what a user with
 * one key writes), a {@link PartitionedRateLimiter} for many keys. {@code async} decides with
 * {@code acquireAsync(1)} (queue limit 0, so one decision) and waits for the future.
 */
final class SluiceContender implements Contender {
    private final RateLimiters limiters;
    private final boolean async;
    private final String[] names;
    private final RateLimiter hotOpen;
    private final RateLimiter hotClosed;
    private final PartitionedRateLimiter<String> open;
    private final PartitionedRateLimiter<String> closed;

    SluiceContender(RateLimiters limiters, boolean async, int keys, LimitSpec openSpec, LimitSpec closedSpec,
            LimiterOptions options, Predicate<String> placement) {
        this.limiters = limiters;
        this.async = async;
        this.names = KeyNames.names(keys);
        Function<String, String> storeKey = name -> limiters.keyPrefix() + "/" + name;
        this.hotOpen = limiters.limiter(KeyNames.hot("hot-open", storeKey, placement), openSpec, options);
        this.hotClosed = limiters.limiter(KeyNames.hot("hot-closed", storeKey, placement), closedSpec, options);
        this.open = limiters.partitioned("open", openSpec, options);
        this.closed = limiters.partitioned("closed", closedSpec, options);
    }

    /**
     * The spec that grants everything this benchmark can ask for, per algorithm. The token bucket refills
     * one token an hour, as Bucket4j's open bucket does: with an instant refill (10^9 a second) every
     * state is full again, hence deleted, within a millisecond, so every grant would create a new record
     * with its expiry metadata, a cost a limiter under real load does not pay (its state lives while the
     * traffic lasts).
     */
    static LimitSpec openSpec(String algorithm) {
        long big = 100_000L;
        switch (algorithm) {
            case "token-bucket": return LimitSpec.tokenBucket(1_000_000_000L, 1, Duration.ofHours(1));
            case "fixed-window": return LimitSpec.fixedWindow(1_000_000_000L, Duration.ofHours(1));
            case "sliding-window": return LimitSpec.slidingWindow(1_000_000_000L, Duration.ofHours(1), 10);
            case "sliding-log": return LimitSpec.slidingLog(big, Duration.ofSeconds(1));
            case "sliding-counter": return LimitSpec.slidingCounter(1_000_000_000L, Duration.ofHours(1));
            case "gcra": return LimitSpec.gcra(1_000_000_000L, Duration.ofSeconds(1), 1_000_000L);
            case "concurrency": return LimitSpec.concurrency(big, Duration.ofSeconds(30));
            // Two components, each as its own row would be: the composite's cost beside a single spec's.
            case "all-of": return LimitSpec.allOf(openSpec("token-bucket"), openSpec("fixed-window"));
            default: throw new IllegalArgumentException("unknown algorithm " + algorithm);
        }
    }

    /** One permit an hour, per algorithm: spent once, then every decision is refused. */
    static LimitSpec closedSpec(String algorithm) {
        Duration hour = Duration.ofHours(1);
        switch (algorithm) {
            case "token-bucket": return LimitSpec.tokenBucket(1, 1, hour);
            case "fixed-window": return LimitSpec.fixedWindow(1, hour);
            case "sliding-window": return LimitSpec.slidingWindow(1, hour, 10);
            case "sliding-log": return LimitSpec.slidingLog(1, hour);
            case "sliding-counter": return LimitSpec.slidingCounter(1, hour);
            case "gcra": return LimitSpec.gcra(1, hour, 1);
            case "concurrency": return LimitSpec.concurrency(1, hour);
            case "all-of": return LimitSpec.allOf(closedSpec("token-bucket"), closedSpec("fixed-window"));
            default: throw new IllegalArgumentException("unknown algorithm " + algorithm);
        }
    }

    @Override
    public boolean decide(int key, boolean isOpen) {
        Lease lease;
        if (async) {
            lease = names.length == 1 ? (isOpen ? hotOpen : hotClosed).acquireAsync(1).join()
                    : (isOpen ? open : closed).acquireAsync(names[key], 1).join();
        } else {
            lease = names.length == 1 ? (isOpen ? hotOpen : hotClosed).tryAcquire(1)
                    : (isOpen ? open : closed).tryAcquire(names[key], 1);
        }
        // A no-op except for concurrency leases, whose release is a second decision.
        try (lease) {
            return lease.isAcquired();
        }
    }

    @Override
    public CompletableFuture<Boolean> decideAsync(int key, boolean isOpen) {
        CompletableFuture<Lease> lease = names.length == 1 ? (isOpen ? hotOpen : hotClosed).acquireAsync(1)
                : (isOpen ? open : closed).acquireAsync(names[key], 1);
        return lease.thenApply(Lease::isAcquired);
    }

    @Override
    public void close() {
        limiters.close();
    }
}
