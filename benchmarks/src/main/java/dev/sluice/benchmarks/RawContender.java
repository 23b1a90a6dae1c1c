package dev.sluice.benchmarks;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.util.concurrent.TimeUnit;

/** {@link RawCounterProcessor} through {@code submitToKey}, waited for as Sluice's sync path waits. */
final class RawContender implements Contender {
    private final IMap<String, Long> map;
    private final boolean async;
    private final String[] open;
    private final String[] closed;

    RawContender(HazelcastInstance hz, boolean ephemeral, boolean async, int keys) {
        this.map = hz.getMap(ephemeral ? BenchCluster.RAW_EPHEMERAL : BenchCluster.RAW);
        this.async = async;
        String[] names = Keys.names(keys);
        this.open = new String[keys];
        this.closed = new String[keys];
        for (int i = 0; i < keys; i++) {
            open[i] = "open/" + names[i];
            closed[i] = "closed/" + names[i];
        }
    }

    @Override
    public boolean decide(int key, boolean isOpen) {
        String k = isOpen ? open[key] : closed[key];
        try {
            var stage = map.submitToKey(k, new RawCounterProcessor(isOpen));
            long result = async ? stage.toCompletableFuture().join()
                    : stage.toCompletableFuture().get(1, TimeUnit.SECONDS);
            return result > 0;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        // nothing to release
    }
}
