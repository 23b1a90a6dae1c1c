package dev.sluice.limiter.runtime;

import dev.sluice.limiter.AllOrNothing;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.spi.DecisionStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * The runtime's one public class: the door through which the API ({@link RateLimiters#chain},
 * {@link AllOrNothing}) and the SPI ({@link dev.sluice.limiter.spi.RateLimiterRuntime}) reach it, since they live
 * in other packages. Everything else here is package-private, and the package is exported to no module. Not for
 * use outside {@code limiter-api}: each method builds exactly what the public entry point that calls it builds,
 * and takes arguments that entry point has already checked.
 */
public final class RuntimeAccess {
    private RuntimeAccess() {}

    /** For {@link dev.sluice.limiter.spi.RateLimiterRuntime#create(DecisionStore, String, RuntimeSettings)}. */
    public static RateLimiters rateLimiters(DecisionStore store, String keyPrefix, RuntimeSettings settings) {
        return new DefaultRateLimiters(store, keyPrefix, settings);
    }

    /** For {@link RateLimiters#chain(RateLimiter...)}. */
    public static RateLimiter chain(List<RateLimiter> links) {
        return new Chain.OfLimiters(links);
    }

    /** For {@link RateLimiters#chain(PartitionedRateLimiter...)}. */
    public static <P> PartitionedRateLimiter<P> partitionedChain(List<PartitionedRateLimiter<? super P>> links) {
        return new Chain.OfPartitioned<>(links);
    }

    /** For {@link AllOrNothing#acquire(String, List, Function)}. */
    public static <T> CompletableFuture<T> allOrNothing(String name, List<? extends AllOrNothing.Step> steps,
            Function<? super AllOrNothing.Result, ? extends CompletionStage<T>> finish) {
        return OrderedAcquire.start(name, steps, finish);
    }
}
