package dev.sluice.spring;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.util.Objects;
import java.util.function.Function;

/**
 * The {@link RateLimiters} the starter created, saying which backend it chose (shown by the Actuator
 * endpoint and the health indicator). An application's own {@link RateLimiters} bean is used as it is.
 */
public final class SluiceRateLimiters implements RateLimiters {
    /** A Hazelcast member in this application. */
    public static final String HAZELCAST_MEMBER = "hazelcast-member";
    /** A Hazelcast client of a cluster elsewhere. */
    public static final String HAZELCAST_CLIENT = "hazelcast-client";
    /** A JCache provider. */
    public static final String JCACHE = "jcache";
    /** This process alone: every instance of the application has its own budgets. */
    public static final String IN_PROCESS = "in-process";

    private final RateLimiters delegate;
    private final String backend;

    SluiceRateLimiters(RateLimiters delegate, String backend) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    /** Which backend: {@link #HAZELCAST_MEMBER}, {@link #HAZELCAST_CLIENT}, {@link #JCACHE} or {@link #IN_PROCESS}. */
    public String backend() {
        return backend;
    }

    /** The backend of {@code limiters}: its {@link #backend()}, or {@code application} for an application's own. */
    static String backendOf(RateLimiters limiters) {
        return limiters instanceof SluiceRateLimiters s ? s.backend : "application";
    }

    @Override public String keyPrefix() { return delegate.keyPrefix(); }

    @Override public dev.sluice.limiter.StoreStatistics storeStatistics() { return delegate.storeStatistics(); }

    @Override public long[] sharedValue(String name, long[] words) { return delegate.sharedValue(name, words); }

    @Override
    public RateLimiter limiter(String name, LimitSpec spec, LimiterOptions options) {
        return delegate.limiter(name, spec, options);
    }

    @Override
    public <P> PartitionedRateLimiter<P> partitioned(String policy, LimitSpec spec, LimiterOptions options,
            Function<? super P, String> partitionId) {
        return delegate.partitioned(policy, spec, options, partitionId);
    }

    @Override
    public <P> PartitionedRateLimiter<P> planned(String policy, dev.sluice.limiter.Plans plans, LimiterOptions options,
            Function<? super P, String> partitionId, Function<? super P, String> planOf) {
        return delegate.planned(policy, plans, options, partitionId, planOf);
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public String toString() {
        return "SluiceRateLimiters[" + backend + "]";
    }
}
