package dev.sluice.benchmarks;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.prefilter.LocalPrefilter;
import dev.sluice.prefilter.PrefilterListener;
import dev.sluice.prefilter.PrefilterMode;
import dev.sluice.prefilter.PrefilterOptions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Sluice through its public API, on any backend: a {@link RateLimiter} for the hot key (what a user with
 * one key writes), a {@link PartitionedRateLimiter} for many keys. {@code async} decides with
 * {@code acquireAsync(1)} (queue limit 0, so one decision) and waits for the future. With an
 * {@linkplain #allowance allowance}, every limiter is behind a local pre-filter in
 * {@link PrefilterMode#ALLOWANCE} mode, and the contender counts what it took from the store against what
 * its callers were granted ({@link #stranded()}).
 */
final class SluiceContender implements Contender {
    private final RateLimiters limiters;
    private final boolean async;
    private final String[] names;
    private final RateLimiter hotOpen;
    private final RateLimiter hotClosed;
    private final PartitionedRateLimiter<String> open;
    private final PartitionedRateLimiter<String> closed;
    /** The hot open key's limiter without its pre-filter: it reads what the store holds. */
    private final RateLimiter hotOpenStore;
    private final boolean allowance;
    /** Permits the store granted to the pre-filters (batches included), and permits callers were granted. */
    private final LongAdder takenFromStore = new LongAdder();
    private final LongAdder grantedToCallers = new LongAdder();

    SluiceContender(RateLimiters limiters, boolean async, int keys, LimitSpec openSpec, LimitSpec closedSpec,
            LimiterOptions options, Predicate<String> placement) {
        this(limiters, async, keys, openSpec, closedSpec, options, placement, false);
    }

    private SluiceContender(RateLimiters limiters, boolean async, int keys, LimitSpec openSpec, LimitSpec closedSpec,
            LimiterOptions options, Predicate<String> placement, boolean allowance) {
        this.limiters = limiters;
        this.async = async;
        this.names = KeyNames.names(keys);
        this.allowance = allowance;
        Function<String, String> storeKey = name -> limiters.keyPrefix() + "/" + name;
        RateLimiter hotOpen = limiters.limiter(KeyNames.hot("hot-open", storeKey, placement), openSpec, options);
        RateLimiter hotClosed = limiters.limiter(KeyNames.hot("hot-closed", storeKey, placement), closedSpec, options);
        PartitionedRateLimiter<String> open = limiters.partitioned("open", openSpec, options);
        PartitionedRateLimiter<String> closed = limiters.partitioned("closed", closedSpec, options);
        this.hotOpenStore = hotOpen;
        if (allowance) {
            PrefilterOptions prefilter = allowanceOptions(keys);
            hotOpen = LocalPrefilter.wrap(hotOpen, prefilter);
            hotClosed = LocalPrefilter.wrap(hotClosed, prefilter);
            open = LocalPrefilter.wrap(open, prefilter);
            closed = LocalPrefilter.wrap(closed, prefilter);
        }
        this.hotOpen = hotOpen;
        this.hotClosed = hotClosed;
        this.open = open;
        this.closed = closed;
    }

    /**
     * Sluice behind the pre-filter's allowance, with its default batch, refill interval and hold; the cache
     * holds twice the keys, as docs/local-prefilter.md asks (a key evicted with permits pooled strands them).
     */
    static SluiceContender allowance(RateLimiters limiters, boolean async, int keys, LimitSpec openSpec,
            LimitSpec closedSpec, LimiterOptions options, Predicate<String> placement) {
        return new SluiceContender(limiters, async, keys, openSpec, closedSpec, options, placement, true);
    }

    private PrefilterOptions allowanceOptions(int keys) {
        return PrefilterOptions.builder().mode(PrefilterMode.ALLOWANCE).maximumSize(Math.max(100_000L, 2L * keys))
                .listener(new PrefilterListener() {
                    @Override
                    public void onStoreCall(String limiter, long permits, boolean granted) {
                        if (granted) {
                            takenFromStore.add(permits);
                        }
                    }
                }).build();
    }

    /**
     * What the allowance stranded in this process: permits the store granted to the pre-filter minus permits
     * granted to callers (so far, set-up included), and the largest batch of the open spec, the bound per key
     * and replica. For the hot key also the store's own count: the budget it consumed (limit minus what it
     * still holds, read with one more grant that is counted).
     */
    record Stranded(long taken, long granted, long cap, long storeConsumed) {
        long stranded() {
            return taken - granted;
        }
    }

    /** The allowance's stranded permits, or null without an allowance. */
    Stranded stranded() {
        if (!allowance) {
            return null;
        }
        long cap = Math.max(1, (long) Math.floor(hotOpenStore.spec().limit() * PrefilterOptions.defaults()
                .maxBatchFraction()));
        long storeConsumed = -1;
        if (names.length == 1) {
            Lease probe = hotOpenStore.tryAcquire(1);
            if (probe.isAcquired() && !probe.isDegraded()) {
                storeConsumed = hotOpenStore.spec().limit() - probe.remaining() - 1;
            }
        }
        return new Stranded(takenFromStore.sum(), grantedToCallers.sum(), cap, storeConsumed);
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
            if (allowance && lease.isAcquired()) {
                grantedToCallers.increment();
            }
            return lease.isAcquired();
        }
    }

    @Override
    public CompletableFuture<Boolean> decideAsync(int key, boolean isOpen) {
        CompletableFuture<Lease> lease = names.length == 1 ? (isOpen ? hotOpen : hotClosed).acquireAsync(1)
                : (isOpen ? open : closed).acquireAsync(names[key], 1);
        return lease.thenApply(l -> {
            if (allowance && l.isAcquired()) {
                grantedToCallers.increment();
            }
            return l.isAcquired();
        });
    }

    @Override
    public void close() {
        limiters.close();
    }
}
