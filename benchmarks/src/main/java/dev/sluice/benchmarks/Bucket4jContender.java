package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.grid.hazelcast.Bucket4jHazelcast;
import io.github.bucket4j.grid.hazelcast.HazelcastProxyManager;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Bucket4j 8.14 on Hazelcast, the way its documentation sets it up: the entry-processor based proxy
 * manager over an {@code IMap<String, byte[]>}, a token bucket per key, entries expiring once the bucket
 * would be full again (as Sluice's do). A bucket proxy per call for many keys (what a per-client limiter
 * does), one kept proxy for the hot key.
 */
final class Bucket4jContender implements Contender {
    private static final BucketConfiguration OPEN = BucketConfiguration.builder()
            .addLimit(limit -> limit.capacity(1_000_000_000L).refillGreedy(1, Duration.ofHours(1)))
            .build();
    private static final BucketConfiguration CLOSED = BucketConfiguration.builder()
            .addLimit(limit -> limit.capacity(1).refillGreedy(1, Duration.ofHours(1)))
            .build();
    private static final Supplier<BucketConfiguration> OPEN_CONFIG = () -> OPEN;
    private static final Supplier<BucketConfiguration> CLOSED_CONFIG = () -> CLOSED;
    private static final Supplier<CompletableFuture<BucketConfiguration>> OPEN_ASYNC =
            () -> CompletableFuture.completedFuture(OPEN);
    private static final Supplier<CompletableFuture<BucketConfiguration>> CLOSED_ASYNC =
            () -> CompletableFuture.completedFuture(CLOSED);

    private final boolean async;
    private final String[] names;
    private final HazelcastProxyManager<String> proxies;
    private final AsyncProxyManager<String> asyncProxies;
    private final BucketProxy hotOpen;
    private final BucketProxy hotClosed;
    private final AsyncBucketProxy hotOpenAsync;
    private final AsyncBucketProxy hotClosedAsync;

    Bucket4jContender(HazelcastInstance hz, boolean async, int keys, Predicate<String> placement) {
        this.async = async;
        this.names = KeyNames.names(keys);
        IMap<String, byte[]> map = hz.getMap(BenchCluster.BUCKET4J);
        this.proxies = Bucket4jHazelcast.entryProcessorBasedBuilder(map)
                .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(1)))
                .build();
        this.asyncProxies = proxies.asAsync();
        String hotOpenKey = KeyNames.hot("hot-open", name -> name, placement);
        String hotClosedKey = KeyNames.hot("hot-closed", name -> name, placement);
        this.hotOpen = proxies.builder().build(hotOpenKey, OPEN_CONFIG);
        this.hotClosed = proxies.builder().build(hotClosedKey, CLOSED_CONFIG);
        this.hotOpenAsync = asyncProxies.builder().build(hotOpenKey, OPEN_ASYNC);
        this.hotClosedAsync = asyncProxies.builder().build(hotClosedKey, CLOSED_ASYNC);
    }

    @Override
    public boolean decide(int key, boolean open) {
        if (async) {
            AsyncBucketProxy bucket = names.length == 1 ? (open ? hotOpenAsync : hotClosedAsync)
                    : asyncProxies.builder().build((open ? "open/" : "closed/") + names[key],
                            open ? OPEN_ASYNC : CLOSED_ASYNC);
            return bucket.tryConsume(1).join();
        }
        BucketProxy bucket = names.length == 1 ? (open ? hotOpen : hotClosed)
                : proxies.builder().build((open ? "open/" : "closed/") + names[key], open ? OPEN_CONFIG : CLOSED_CONFIG);
        return bucket.tryConsume(1);
    }

    @Override
    public CompletableFuture<Boolean> decideAsync(int key, boolean open) {
        AsyncBucketProxy bucket = names.length == 1 ? (open ? hotOpenAsync : hotClosedAsync)
                : asyncProxies.builder().build((open ? "open/" : "closed/") + names[key], open ? OPEN_ASYNC : CLOSED_ASYNC);
        return bucket.tryConsume(1);
    }

    @Override
    public void close() {
        // the proxy manager holds no resources of its own
    }
}
