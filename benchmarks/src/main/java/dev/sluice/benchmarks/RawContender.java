package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * {@link RawCounterProcessor}: sync through {@code executeOnKey} (the cheapest blocking call, the one
 * Bucket4j makes), async through {@code submitToKey} and {@code join}, or {@code submitToKey} waited for
 * with a deadline as Sluice's sync path waits ({@code viaSubmit}).
 */
final class RawContender implements Contender {
    private final IMap<String, Long> map;
    private final boolean async;
    private final boolean viaSubmit;
    private final boolean ttl;
    private final String[] open;
    private final String[] closed;

    RawContender(HazelcastInstance hz, boolean ephemeral, boolean async, int keys, Predicate<String> placement) {
        this(hz, ephemeral, async, false, keys, placement);
    }

    RawContender(HazelcastInstance hz, boolean ephemeral, boolean async, boolean viaSubmit, int keys,
            Predicate<String> placement) {
        this(hz, ephemeral, async, viaSubmit, false, keys, placement);
    }

    /** @param ttl every write with a per-entry TTL ({@link RawCounterProcessor#RawCounterProcessor(boolean, boolean)}) */
    RawContender(HazelcastInstance hz, boolean ephemeral, boolean async, boolean viaSubmit, boolean ttl, int keys,
            Predicate<String> placement) {
        this.ttl = ttl;
        this.viaSubmit = viaSubmit;
        this.map = hz.getMap(ephemeral ? BenchCluster.RAW_EPHEMERAL : ttl ? BenchCluster.RAW_TTL : BenchCluster.RAW);
        this.async = async;
        String[] names = KeyNames.names(keys);
        this.open = new String[keys];
        this.closed = new String[keys];
        for (int i = 0; i < keys; i++) {
            open[i] = "open/" + names[i];
            closed[i] = "closed/" + names[i];
        }
        if (keys == 1) {
            open[0] = KeyNames.hot("open/hot", name -> name, placement);
            closed[0] = KeyNames.hot("closed/hot", name -> name, placement);
        }
    }

    @Override
    public boolean decide(int key, boolean isOpen) {
        String k = isOpen ? open[key] : closed[key];
        try {
            if (!async && !viaSubmit) {
                return map.executeOnKey(k, new RawCounterProcessor(isOpen, ttl)) > 0;
            }
            var stage = map.submitToKey(k, new RawCounterProcessor(isOpen, ttl));
            long result = async ? stage.toCompletableFuture().join()
                    : stage.toCompletableFuture().get(1, TimeUnit.SECONDS);
            return result > 0;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> decideAsync(int key, boolean isOpen) {
        return map.submitToKey(isOpen ? open[key] : closed[key], new RawCounterProcessor(isOpen, ttl))
                .toCompletableFuture().thenApply(result -> result > 0);
    }

    @Override
    public void close() {
        // nothing to release
    }
}
