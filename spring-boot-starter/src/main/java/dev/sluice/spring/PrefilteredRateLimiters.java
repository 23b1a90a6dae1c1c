package dev.sluice.spring;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.prefilter.LocalPrefilter;
import dev.sluice.prefilter.PrefilterMode;
import dev.sluice.prefilter.PrefilterOptions;
import java.util.function.Function;

/**
 * Puts a local pre-filter in front of every limiter the HTTP filters and {@link RateLimited} create
 * ({@code sluice.prefilter.mode}). Concurrency limiters keep only the refusal cache: allowance batches
 * are not for them.
 */
final class PrefilteredRateLimiters implements RateLimiters {
    private final RateLimiters delegate;
    private final PrefilterMode mode;

    PrefilteredRateLimiters(RateLimiters delegate, String modeName) {
        this.delegate = delegate;
        this.mode = PrefilterMode.valueOf(modeName);
    }

    private PrefilterOptions options(LimitSpec spec) {
        PrefilterMode m = spec instanceof LimitSpec.Concurrency ? PrefilterMode.REFUSAL_CACHE : mode;
        return PrefilterOptions.builder().mode(m).build();
    }

    @Override public String keyPrefix() { return delegate.keyPrefix(); }

    @Override public dev.sluice.limiter.StoreStatistics storeStatistics() { return delegate.storeStatistics(); }

    @Override public long[] sharedValue(String name, long[] words) { return delegate.sharedValue(name, words); }

    @Override
    public RateLimiter limiter(String name, LimitSpec spec, LimiterOptions options) {
        return LocalPrefilter.wrap(delegate.limiter(name, spec, options), options(spec));
    }

    @Override
    public <P> PartitionedRateLimiter<P> partitioned(String policy, LimitSpec spec, LimiterOptions options,
            Function<? super P, String> partitionId) {
        return LocalPrefilter.wrap(delegate.partitioned(policy, spec, options, partitionId), options(spec));
    }

    /** Only the refusal cache: an allowance batch would be sized by one plan's limit for every plan. */
    @Override
    public <P> PartitionedRateLimiter<P> planned(String policy, dev.sluice.limiter.Plans plans, LimiterOptions options,
            Function<? super P, String> partitionId, Function<? super P, String> planOf) {
        return LocalPrefilter.wrap(delegate.planned(policy, plans, options, partitionId, planOf),
                PrefilterOptions.builder().mode(PrefilterMode.REFUSAL_CACHE).build());
    }

    /** The application's {@link RateLimiters} stay open: this wrapper owns nothing but the limiters. */
    @Override
    public void close() {}
}
