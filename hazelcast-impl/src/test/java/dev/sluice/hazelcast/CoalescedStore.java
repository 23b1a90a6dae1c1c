package dev.sluice.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.limiter.Coalescing;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.store.Coalescer;
import dev.sluice.limiter.store.RateLimiterRuntime;
import dev.sluice.limiter.store.StepRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;

/** A Hazelcast store behind the runtime's coalescer, as the limiters reach it, for tests that drive it directly. */
final class CoalescedStore implements AutoCloseable {
    final HazelcastDecisionStore store;
    final Coalescer coalescer;

    CoalescedStore(HazelcastInstance instance, String mapName, Coalescing coalescing) {
        this(new HazelcastDecisionStore(instance, mapName, null), coalescing);
    }

    CoalescedStore(HazelcastInstance instance, String mapName, Coalescing coalescing, Executor callbacks) {
        this(new HazelcastDecisionStore(instance, mapName, callbacks), coalescing);
    }

    CoalescedStore(HazelcastDecisionStore store, Coalescing coalescing) {
        this.store = store;
        this.coalescer = new Coalescer(store, coalescing);
    }

    CompletableFuture<Verdict> submit(StepRequest request) {
        return coalescer.submit(request, Long.MAX_VALUE);
    }

    Verdict execute(StepRequest request, long timeoutNanos)
            throws TimeoutException, ExecutionException, InterruptedException {
        return coalescer.execute(request, timeoutNanos);
    }

    /** Limiters over this store and coalescer. */
    RateLimiters limiters() {
        return RateLimiterRuntime.create(coalescer, "sluice", RuntimeSettings.defaults());
    }

    @Override
    public void close() {
        store.close();
    }
}
