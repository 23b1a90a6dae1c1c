package dev.sluice.it.contract;

import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A reset on a real store with the real clock, windows that are not whole seconds: a drained key is reset from one
 * replica to a given remaining at the store's time {@code T} (the reset's {@link KeyState#readAt()}), and another
 * replica then asks steadily for a window and a bit. The reset's state is a fresh key's after taking the rest at
 * {@code T}, so the grants decided (on the store's clock) within the window that {@code T} opened are at most the
 * remaining: for a sliding log {@code [T, T + window)}, for a fixed window {@code [T, end of T's window)}. The first
 * request after the reset is granted, whenever it is decided.
 */
public final class ResetRealTime {
    private ResetRealTime() {}

    /** The checked specs and the remaining each is reset to. */
    private static final List<Object[]> CASES = List.of(
            new Object[] {LimitSpec.slidingLog(15, Duration.ofMillis(2_500)), 4L},
            new Object[] {LimitSpec.fixedWindow(20, Duration.ofMillis(1_300)), 5L});

    /** The problems found on {@code replicas} (the first resets, the last asks), or none. */
    public static List<String> check(String backend, List<RateLimiters> replicas, LimiterOptions options) {
        List<String> problems = new ArrayList<>();
        for (Object[] c : CASES) {
            LimitSpec spec = (LimitSpec) c[0];
            long remaining = (Long) c[1];
            String name = "reset-realtime-" + UUID.randomUUID();
            RateLimiter operator = replicas.get(0).limiter(name, spec, options);
            RateLimiter caller = replicas.get(replicas.size() - 1).limiter(name, spec, options);
            while (caller.tryAcquire(1).isAcquired()) {
                // drain
            }
            KeyState after = operator.reset(remaining);
            long at = after.readAt().toEpochMilli();
            long window = windowMillis(spec);
            long until = spec instanceof LimitSpec.SlidingLog ? at + window : Math.floorDiv(at, window) * window + window;
            List<Long> grants = new ArrayList<>();
            long askUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(window + 300);
            boolean first = true;
            while (System.nanoTime() < askUntil) {
                Lease lease = caller.tryAcquire(1);
                if (first && !lease.isAcquired()) {
                    problems.add(backend + ", " + spec + ": the first request after the reset was refused: " + lease);
                }
                first = false;
                if (lease.isAcquired()) {
                    grants.add(DecisionTimes.of(lease)[0]);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
            long inside = grants.stream().filter(t -> t >= at && t < until).count();
            if (after.remaining() != remaining || inside > remaining) {
                problems.add(backend + ", " + spec + ": reset to " + remaining + " at " + at + " (answered " + after
                        + "), then " + inside + " grants before " + until + "; all grants at " + grants);
            }
        }
        return problems;
    }

    private static long windowMillis(LimitSpec spec) {
        return spec instanceof LimitSpec.SlidingLog log ? log.windowMillis()
                : ((LimitSpec.FixedWindow) spec).windowMillis();
    }
}
