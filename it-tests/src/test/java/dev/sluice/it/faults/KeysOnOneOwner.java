package dev.sluice.it.faults;

import com.hazelcast.core.HazelcastInstance;
import dev.sluice.hazelcast.HazelcastRateLimiters;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Three member JVMs (backup count 1) and two clients in this JVM, with one key per spec, every key owned by the
 * same member, {@link #VICTIM}: the scene of the tests that kill a key's owner while steps on those keys are in
 * flight. Each limiter retries a step up to 10 times within 30 s, so a step that ran on the dying owner is run
 * again, by the client's retry or by Hazelcast.
 */
final class KeysOnOneOwner implements AutoCloseable {
    /** The member that owns every key, and is killed. */
    static final int VICTIM = 1;

    private final FaultCluster cluster;
    private final List<RateLimiters> factories;
    private final List<LimitSpec> specs;
    private final RateLimiter[][] limiters;

    private KeysOnOneOwner(FaultCluster cluster, List<RateLimiters> factories, List<LimitSpec> specs,
            RateLimiter[][] limiters) {
        this.cluster = cluster;
        this.factories = factories;
        this.specs = specs;
        this.limiters = limiters;
    }

    /** Starts the cluster and the clients, and names the keys; the specs' window is kept away from its boundary. */
    static KeysOnOneOwner start(String name, List<LimitSpec> specs, Duration window) {
        FaultCluster cluster = FaultCluster.start(name, 3);
        try {
            Duration timeout = Duration.ofSeconds(5);
            List<HazelcastInstance> clients = List.of(cluster.client(timeout), cluster.client(timeout));
            clients.forEach(c -> FaultCluster.awaitMembers(c, 3, Duration.ofSeconds(30)));
            List<RateLimiters> factories = clients.stream().map(HazelcastRateLimiters::create).toList();
            clients.forEach(FaultCluster::warmUp);
            Windows.avoidBoundary(window, Duration.ofSeconds(60));
            List<String> names = new ArrayList<>();
            for (int i = 0; names.size() < specs.size(); i++) {
                String candidate = name + "-" + i;
                if (cluster.ownerOf(clients.get(0), Keys.limiterKey(factories.get(0).keyPrefix(), candidate)) == VICTIM) {
                    names.add(candidate);
                }
            }
            LimiterOptions options = LimiterOptions.builder().decisionTimeout(Duration.ofSeconds(30)).maxRetries(10)
                    .build();
            RateLimiter[][] limiters = new RateLimiter[factories.size()][specs.size()];
            for (int r = 0; r < factories.size(); r++) {
                for (int k = 0; k < specs.size(); k++) {
                    limiters[r][k] = factories.get(r).limiter(names.get(k), specs.get(k), options);
                }
            }
            return new KeysOnOneOwner(cluster, factories, specs, limiters);
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** The limiter of key {@code k} on one of the two clients, by parity of {@code i}: callers alternate. */
    RateLimiter limiter(int i, int k) {
        return limiters[i % limiters.length][k];
    }

    /** A one-line name of key {@code k}, for reports. */
    String describe(int k) {
        return "key " + k + " " + specs.get(k).algorithm();
    }

    /** What one worker does with one item of the work. */
    interface Step<T> {
        void run(T item) throws Exception;
    }

    /**
     * Drains {@code work} with {@code threads} workers, kills {@link #VICTIM} once a third of it is done, and waits
     * for the rest; a worker's failure fails the test.
     */
    <T> void drainKillingTheOwner(Queue<T> work, int threads, Step<T> step, String what) throws Exception {
        int total = work.size();
        AtomicInteger done = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    for (T next = work.poll(); next != null; next = work.poll()) {
                        step.run(next);
                        done.incrementAndGet();
                    }
                    return null;
                }));
            }
            FaultCluster.await(() -> done.get() >= total / 3, Duration.ofMinutes(1), () -> what + " stalled");
            cluster.kill(VICTIM);
            for (Future<?> f : futures) {
                f.get(3, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Asks key {@code k} one permit at a time, alternating clients, until it refuses or {@code max} are granted. */
    int grantsUntilRefused(int k, int max) {
        int granted = 0;
        while (granted < max && limiter(granted, k).tryAcquire(1).isAcquired()) {
            granted++;
        }
        return granted;
    }

    @Override
    public void close() {
        factories.forEach(RateLimiters::close);
        cluster.close();
    }
}
