package dev.sluice.it.contract;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.Plans;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Plans on a real store with the real clock: one planned fixed window of 730 ms (not a whole number of seconds), a
 * free plan of 3 and a pro plan of 8, a free and a pro client asked at once by 4 callers each over every replica for
 * a few windows. Counted by the store's own decision times, no window of the store holds more grants of a client
 * than its plan's limit, and each client reaches its plan's limit in some window.
 */
public final class PlansRealTime {
    private static final long WINDOW_MILLIS = 730;
    private static final Map<String, Long> LIMITS = Map.of("free", 3L, "pro", 8L);
    private static final int CALLERS_PER_CLIENT = 4;

    private PlansRealTime() {}

    /** The problems found on {@code replicas}, or none. */
    public static List<String> check(String backend, List<RateLimiters> replicas, LimiterOptions options)
            throws InterruptedException {
        Plans plans = Plans.builder().plan("free", LimitSpec.fixedWindow(3, Duration.ofMillis(WINDOW_MILLIS)))
                .plan("pro", LimitSpec.fixedWindow(8, Duration.ofMillis(WINDOW_MILLIS))).defaultPlan("free").build();
        String name = "plans-realtime-" + UUID.randomUUID();
        Map<String, String> planOf = Map.of("alice", "free", "bob", "pro");
        List<PartitionedRateLimiter<String>> limiters = replicas.stream()
                .map(r -> r.planned(name, plans, options, planOf::get)).toList();
        Map<String, ConcurrentLinkedQueue<Long>> grants = Map.of("alice", new ConcurrentLinkedQueue<>(), "bob",
                new ConcurrentLinkedQueue<>());
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WINDOW_MILLIS * 4);
        List<Thread> callers = new ArrayList<>();
        for (String client : planOf.keySet()) {
            for (int c = 0; c < CALLERS_PER_CLIENT; c++) {
                PartitionedRateLimiter<String> limiter = limiters.get(c % limiters.size());
                Thread caller = new Thread(() -> {
                    while (System.nanoTime() < until) {
                        Lease lease = limiter.tryAcquire(client, 1);
                        if (lease.isAcquired()) {
                            grants.get(client).add(DecisionTimes.of(lease)[0]);
                        }
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                }, "plans-realtime-" + client + "-" + c);
                caller.start();
                callers.add(caller);
            }
        }
        for (Thread t : callers) {
            t.join();
        }
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, String> e : planOf.entrySet()) {
            long limit = LIMITS.get(e.getValue());
            TreeMap<Long, Integer> perWindow = new TreeMap<>();
            for (long at : grants.get(e.getKey())) {
                perWindow.merge(Math.floorDiv(at, WINDOW_MILLIS), 1, Integer::sum);
            }
            perWindow.forEach((window, count) -> {
                if (count > limit) {
                    problems.add(backend + ": " + e.getKey() + " (plan " + e.getValue() + ", limit " + limit + ") got "
                            + count + " in the store's window " + window);
                }
            });
            if (!perWindow.containsValue((int) limit)) {
                problems.add(backend + ": " + e.getKey() + " (plan " + e.getValue() + ") never reached its limit " + limit
                        + " in a window: " + perWindow);
            }
        }
        return problems;
    }
}
