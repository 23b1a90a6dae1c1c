package dev.sluice.it.contract;

import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A daily calendar quota across its midnight on a real store with the real clock: the zone is an offset chosen so
 * that the next local midnight {@code B} comes about 1.3 s after the start, and callers on every replica ask
 * steadily until 0.7 s past it. By the store's clock (each grant's decision time, {@link DecisionTimes}): at most
 * the limit is granted before {@code B}, a fresh budget after it (at least one grant, at most the limit), and every
 * grant's {@code resetAfter} points at its window's end exactly ({@code B}, or {@code B} plus a day).
 */
public final class CalendarRealTime {
    private static final long DAY = 86_400_000L;
    private static final long LIMIT = 5;
    private static final int CALLERS = 4;

    private CalendarRealTime() {}

    /** A grant: when the store decided it, and the resetAfter it answered. */
    private record Grant(long decided, long resetAfter) {}

    /** The problems found on {@code replicas}, or none. */
    public static List<String> check(String backend, List<RateLimiters> replicas, LimiterOptions options)
            throws Exception {
        long now = System.currentTimeMillis();
        long target = DAY - 1_300; // local time of day at now: 1.3 s before midnight, to the second below
        long offsetSeconds = Math.floorMod(Math.floorDiv(target - Math.floorMod(now, DAY), 1_000L), 86_400L);
        if (offsetSeconds > 43_200) {
            offsetSeconds -= 86_400; // within the +-18 h an offset may be
        }
        ZoneOffset zone = ZoneOffset.ofTotalSeconds((int) offsetSeconds);
        long boundary = now + DAY - Math.floorMod(now + offsetSeconds * 1_000, DAY);
        LimitSpec spec = LimitSpec.calendarWindow(LIMIT, CalendarPeriod.DAY, zone);
        String name = "calendar-realtime-" + UUID.randomUUID();
        List<RateLimiter> limiters = replicas.stream().map(r -> r.limiter(name, spec, options)).toList();
        List<Grant> grants = Collections.synchronizedList(new ArrayList<>());
        long askUntil = boundary + 700;
        ExecutorService pool = Executors.newFixedThreadPool(CALLERS);
        try {
            List<Future<?>> callers = new ArrayList<>();
            for (int c = 0; c < CALLERS; c++) {
                RateLimiter limiter = limiters.get(c % limiters.size());
                callers.add(pool.submit(() -> {
                    while (System.currentTimeMillis() < askUntil) {
                        Lease lease = limiter.tryAcquire(1);
                        if (lease.isAcquired()) {
                            grants.add(new Grant(DecisionTimes.of(lease)[0], lease.resetAfter().toMillis()));
                        }
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3));
                    }
                    return null;
                }));
            }
            for (Future<?> f : callers) {
                f.get(1, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        List<String> problems = new ArrayList<>();
        String what = backend + ", " + spec + ", midnight at " + boundary;
        long before = grants.stream().filter(g -> g.decided() < boundary).count();
        long after = grants.stream().filter(g -> g.decided() >= boundary).count();
        if (before > LIMIT) {
            problems.add(what + ": " + before + " granted before midnight, more than " + LIMIT + ": " + grants);
        }
        if (after < 1 || after > LIMIT) {
            problems.add(what + ": " + after + " granted after midnight, expected a fresh budget of 1 to " + LIMIT
                    + ": " + grants);
        }
        for (Grant g : grants) {
            long end = g.decided() < boundary ? boundary : boundary + DAY;
            if (g.resetAfter() != end - g.decided()) {
                problems.add(what + ": a grant decided at " + g.decided() + " answered resetAfter " + g.resetAfter()
                        + " ms, not " + (end - g.decided()) + " ms to its window's end " + end);
            }
        }
        return problems;
    }
}
