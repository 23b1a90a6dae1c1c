package dev.sluice.it.hazelcast;

import dev.sluice.it.contract.Backend;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.StoreStatistics;
import dev.sluice.limiter.local.ManualClock;
import java.util.List;
import java.util.function.Function;

/**
 * A backend whose every limiter is {@link Durability#REPLICATED_ASYNC}, whatever options the contract suite
 * builds: each replica's factory rewrites the durability of the options it is given, so every test of the
 * suite runs unchanged on the map with an asynchronous backup.
 */
final class AsyncBackupBackends {
    private AsyncBackupBackends() {}

    static Backend of(Backend backend) {
        List<RateLimiters> replicas = backend.replicas().stream().<RateLimiters>map(AsyncBackupFactory::new).toList();
        return new Backend() {
            @Override public String name() { return backend.name(); }
            @Override public ManualClock clock() { return backend.clock(); }
            @Override public List<RateLimiters> replicas() { return replicas; }
            @Override public void close() throws Exception { backend.close(); }
        };
    }

    private record AsyncBackupFactory(RateLimiters factory) implements RateLimiters {
        private static LimiterOptions asyncBackup(LimiterOptions options) {
            return options.toBuilder().durability(Durability.REPLICATED_ASYNC).build();
        }

        @Override
        public String keyPrefix() {
            return factory.keyPrefix();
        }

        @Override
        public RateLimiter limiter(String name, LimitSpec spec, LimiterOptions options) {
            return factory.limiter(name, spec, asyncBackup(options));
        }

        @Override
        public <P> PartitionedRateLimiter<P> partitioned(String policy, LimitSpec spec, LimiterOptions options,
                Function<? super P, String> partitionId) {
            return factory.partitioned(policy, spec, asyncBackup(options), partitionId);
        }

        @Override
        public StoreStatistics storeStatistics() {
            return factory.storeStatistics();
        }

        @Override
        public void close() {
            factory.close();
        }
    }
}
