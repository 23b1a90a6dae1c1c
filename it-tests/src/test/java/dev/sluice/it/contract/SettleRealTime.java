package dev.sluice.it.contract;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.Settlement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A debt repaid on a real store with the real clock, a window that is not a whole number of seconds: one replica
 * spends a fixed window's 10 in two leases of 5 and settles one of them at 10, so the key owes 5 (tried again if the
 * window turned in between, when the new window's budget paid it); another replica then asks for one permit every
 * 2 ms for two windows and a bit. The first window in which anything is granted (on the store's clock) grants at most
 * 10 - 5: the debt was paid from its budget before its first grant.
 */
public final class SettleRealTime {
    private static final LimitSpec SPEC = LimitSpec.fixedWindow(10, Duration.ofMillis(700));
    private static final long WINDOW = 700;

    private SettleRealTime() {}

    /** The problems found on {@code replicas} (the first settles, the last asks), or none. */
    public static List<String> check(String backend, List<RateLimiters> replicas, LimiterOptions options)
            throws Exception {
        List<String> problems = new ArrayList<>();
        for (int attempt = 0; attempt < 5; attempt++) {
            String name = "settle-realtime-" + UUID.randomUUID();
            RateLimiter worker = replicas.get(0).limiter(name, SPEC, options);
            RateLimiter caller = replicas.get(replicas.size() - 1).limiter(name, SPEC, options);
            Lease first = worker.tryAcquire(5);
            Lease second = worker.tryAcquire(5);
            if (!first.isAcquired() || !second.isAcquired()) {
                problems.add(backend + ": a fresh key refused its own budget: " + first + ", " + second);
                return problems;
            }
            Settlement settled = first.settle(10).get(30, TimeUnit.SECONDS);
            if (settled.debt() != 5) {
                continue; // the window turned between the grants and the settlement: its new budget paid
            }
            List<Long> grants = new ArrayList<>();
            long askUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * WINDOW + 200);
            while (System.nanoTime() < askUntil) {
                Lease lease = caller.tryAcquire(1);
                if (lease.isAcquired()) {
                    grants.add(DecisionTimes.of(lease)[0]);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
            if (grants.isEmpty()) {
                problems.add(backend + ": nothing granted for two windows after a debt of 5 of 10");
                return problems;
            }
            long window = Math.floorDiv(grants.get(0), WINDOW);
            long inFirst = grants.stream().filter(t -> Math.floorDiv(t, WINDOW) == window).count();
            if (inFirst > 5) {
                problems.add(backend + ": " + inFirst + " granted in the first window after a debt of 5 of 10;"
                        + " grants at " + grants);
            }
            return problems;
        }
        problems.add(backend + ": five tries, and every time the window turned before the settlement landed");
        return problems;
    }
}
