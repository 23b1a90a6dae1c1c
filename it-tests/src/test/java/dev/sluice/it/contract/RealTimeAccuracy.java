package dev.sluice.it.contract;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Every algorithm on a real store with the real clock: callers ask steadily, far above every limit, for a few
 * seconds; every grant is recorded and checked against the algorithm's own invariant.
 *
 * <p>Safety is checked in the deciding store's own clock, with no tolerance: each grant carries the time its step
 * ran with ({@link DecisionTimes}), the time the algorithm's bound is stated in. A set of grants decided inside
 * {@code [s, e]} must fit the algorithm's bound for that interval:
 * <ul>
 *   <li>fixed window, sliding counter: {@code limit} per epoch-aligned window touched (for the counter this
 *       follows from the current count never exceeding the limit);
 *   <li>segmented sliding window: {@code limit} per {@code segmentsPerWindow} consecutive segments touched;
 *   <li>sliding log: {@code limit} per window-long interval needed to cover {@code [s, e]};
 *   <li>token bucket: {@code tokenLimit + tokensPerPeriod * (floor(L / period) + 1)} for length {@code L};
 *   <li>GCRA: {@code burst + floor(L * rate / period) + 1};
 *   <li>composite: the smallest of its components' bounds (every one holds at once); a chain: each link's bound
 *       on its own key's clock;
 *   <li>concurrency: at no instant more than {@code limit} leases certainly held (from a grant's decision to its
 *       release's request, within the lease's first duration); some callers hold longer than the lease, through
 *       renewal.
 * </ul>
 * Checking every pair of (first, last) decision times finds the worst such set.
 *
 * <p>Liveness is checked against the demand that reached the store, never against a demand a busy machine may not
 * have sent: every refusal must have had a cause in the grants before it (the fixed window already holds its
 * limit, the log holds its limit within a window, a bucket was drained by as many grants as its refills could have
 * made good, ...). A refusal's decision time is known only to lie within its send and answer, moved into the
 * store's clock by the offsets the grants show; it fails only when no time in that span could have caused it.
 * The caller's and the store's clocks are compared nowhere else, and the run's table reports how far apart they
 * were.
 */
public final class RealTimeAccuracy {
    private RealTimeAccuracy() {}

    /** Every algorithm, windows and periods from 50 ms to 2.5 s, most not a whole number of seconds. */
    public static List<LimitSpec> specs() {
        return List.of(
                LimitSpec.fixedWindow(3, Duration.ofMillis(50)),
                LimitSpec.fixedWindow(5, Duration.ofMillis(130)),
                LimitSpec.fixedWindow(20, Duration.ofMillis(1_300)),
                LimitSpec.slidingWindow(8, Duration.ofMillis(400), 4),
                LimitSpec.slidingLog(6, Duration.ofMillis(220)),
                LimitSpec.slidingLog(15, Duration.ofMillis(2_500)),
                LimitSpec.slidingCounter(6, Duration.ofMillis(300)),
                LimitSpec.tokenBucket(5, 2, Duration.ofMillis(120)),
                LimitSpec.gcra(3, Duration.ofMillis(100), 4),
                LimitSpec.concurrency(3, Duration.ofMillis(350)),
                LimitSpec.allOf(LimitSpec.fixedWindow(4, Duration.ofMillis(90)), LimitSpec.slidingLog(10, Duration.ofMillis(700))),
                CHAIN);
    }

    /**
     * Not one limiter but {@link RateLimiters#chain} of its components on two keys: a log that the bucket after
     * it often refuses, so most of the log's grants are refunded. What stands must fit both, which is the
     * composite's bound.
     */
    public static final LimitSpec.AllOf CHAIN = LimitSpec.allOf(LimitSpec.slidingLog(6, Duration.ofMillis(260)),
            LimitSpec.tokenBucket(3, 1, Duration.ofMillis(70)));

    private static RateLimiter limiterFor(RateLimiters replica, String name, LimitSpec spec, LimiterOptions options) {
        if (spec != CHAIN) {
            return replica.limiter(name, spec, options);
        }
        List<LimitSpec> links = CHAIN.components();
        return RateLimiters.chain(replica.limiter(name + "-log", links.get(0), options),
                replica.limiter(name + "-bucket", links.get(1), options));
    }

    /**
     * One limiter's run: what it granted and refused, what it may grant at most over the run (the store's clock),
     * the worst excess, the refusals that had no cause, and how far the store's decision times lay outside the
     * callers' send-to-answer spans ({@code early}: before the send, {@code late}: after the answer).
     */
    public record Result(String backend, LimitSpec spec, int granted, int refused, int failed, long allowed,
            double worstRatio, long uncaused, long early, long late, String violation) {
        public boolean ok() {
            return safe() && uncaused == 0;
        }

        /**
         * {@link #ok()} but for the refusals' causes: nothing over the bound, no failure, some grants. What a run
         * across a member's kill can be held to, where charges that no lease records (a step retried after it ran
         * on the dying owner, a grant whose answer was lost) cause refusals that the recorded grants do not explain.
         */
        public boolean safe() {
            return violation == null && failed == 0 && granted > 0;
        }

        public String problem() {
            if (violation != null) {
                return violation;
            }
            if (failed > 0) {
                return failed + " decisions failed";
            }
            return granted == 0 ? "granted nothing" : uncaused > 0 ? uncaused + " refusals without a cause" : null;
        }

        /** One row of the report. */
        public String row() {
            return String.format("| %-28s | %-44s | %7d | %7d | %7d | %6.2f | %8d | %5d | %5d | %s |", backend,
                    describe(spec), granted, refused, allowed, worstRatio, uncaused, early, late,
                    ok() ? "ok" : "FAIL: " + problem());
        }

        public static String header() {
            return String.format("| %-28s | %-44s | %7s | %7s | %7s | %6s | %8s | %5s | %5s | %s |%n"
                    + "|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|", "backend", "spec", "granted", "refused", "allowed", "worst",
                    "uncaused", "early", "late", "result", "-".repeat(30), "-".repeat(46), "-".repeat(9), "-".repeat(9),
                    "-".repeat(9), "-".repeat(8), "-".repeat(10), "-".repeat(7), "-".repeat(7), "---");
        }
    }

    /**
     * Runs every spec at once on {@code replicas} (callers spread over them) for {@code duration}, with
     * {@code callersPerSpec} callers each, half of them through {@code acquireAsync}.
     */
    public static List<Result> run(String backend, List<RateLimiters> replicas, List<LimitSpec> specs,
            LimiterOptions options, Duration duration, int callersPerSpec) throws InterruptedException {
        String run = UUID.randomUUID().toString();
        List<String> names = new ArrayList<>();
        for (int s = 0; s < specs.size(); s++) {
            names.add("realtime-" + specs.get(s).algorithm() + "-" + s + "-" + run);
        }
        return run(backend, replicas, specs, names, options, duration, callersPerSpec);
    }

    /** {@link #run}, with the limiters' names given (one per spec): to place keys on chosen members. */
    public static List<Result> run(String backend, List<RateLimiters> replicas, List<LimitSpec> specs,
            List<String> names, LimiterOptions options, Duration duration, int callersPerSpec)
            throws InterruptedException {
        List<Recorder> recorders = new ArrayList<>();
        for (int s = 0; s < specs.size(); s++) {
            LimitSpec spec = specs.get(s);
            String name = names.get(s);
            List<RateLimiter> limiters = replicas.stream().map(r -> limiterFor(r, name, spec, options)).toList();
            recorders.add(new Recorder(spec, limiters));
        }
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        long[] endNanos = new long[1];
        for (Recorder recorder : recorders) {
            for (int c = 0; c < callersPerSpec; c++) {
                int caller = c;
                Thread t = new Thread(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    recorder.ask(caller, endNanos[0]);
                }, "realtime-" + recorder.spec.algorithm() + "-" + c);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }
        endNanos[0] = System.nanoTime() + duration.toNanos();
        start.countDown();
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
        }
        List<Result> results = new ArrayList<>();
        for (Recorder r : recorders) {
            results.add(r.result(backend));
        }
        return results;
    }

    /**
     * A grant: the caller's clock at its send and answer, the store's decision time on each key it took from (one
     * for a limiter, one per link for a chain) and, for concurrency, the caller's clock when it sent the release
     * ({@code Long.MAX_VALUE} if never released).
     */
    record Grant(long sent, long answered, long[] decided, long released) {}

    /** The grants of one limiter, from all its callers. */
    private static final class Recorder {
        final LimitSpec spec;
        final List<RateLimiter> limiters;
        final ConcurrentLinkedQueue<Grant> grants = new ConcurrentLinkedQueue<>();
        /** {sentAt, answeredAt} of each refusal. */
        final ConcurrentLinkedQueue<long[]> refusals = new ConcurrentLinkedQueue<>();
        final AtomicInteger failed = new AtomicInteger();
        /** Refusals by the failure mode when the store gave no decision in time. */
        final AtomicInteger degraded = new AtomicInteger();
        final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();

        Recorder(LimitSpec spec, List<RateLimiter> limiters) {
            this.spec = spec;
            this.limiters = limiters;
        }

        void ask(int caller, long endNanos) {
            RateLimiter limiter = limiters.get(caller % limiters.size());
            boolean async = caller % 2 == 1;
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (System.nanoTime() - endNanos < 0) {
                long sentAt = System.currentTimeMillis();
                Lease lease;
                try {
                    lease = async ? limiter.acquireAsync(1).get(30, TimeUnit.SECONDS) : limiter.tryAcquire(1);
                } catch (Exception e) {
                    failed.incrementAndGet();
                    failures.add(e.toString());
                    continue;
                }
                long answeredAt = System.currentTimeMillis();
                if (!lease.isAcquired() && lease.isDegraded()) {
                    degraded.incrementAndGet(); // the failure mode's, not the store's: it needs no cause
                } else if (!lease.isAcquired()) {
                    refusals.add(new long[] {sentAt, answeredAt});
                } else if (lease.isDegraded()) {
                    failed.incrementAndGet();
                    failures.add("a degraded grant: " + lease);
                } else if (spec instanceof LimitSpec.Concurrency c) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(holdMillis(c, random)));
                    long releaseAt = System.currentTimeMillis();
                    lease.close();
                    grants.add(new Grant(sentAt, answeredAt, DecisionTimes.of(lease), releaseAt));
                } else {
                    grants.add(new Grant(sentAt, answeredAt, DecisionTimes.of(lease), Long.MAX_VALUE));
                }
                // About a thousand requests a second per caller: far above every limit, not a busy spin.
                LockSupport.parkNanos(500_000 + random.nextLong(1_000_000));
            }
        }

        /** Mostly short holds, some longer than the lease itself, which only renewal keeps alive. */
        private static long holdMillis(LimitSpec.Concurrency spec, ThreadLocalRandom random) {
            int dice = random.nextInt(100);
            if (dice < 70) {
                return random.nextLong(30);
            }
            if (dice < 95) {
                return 30 + random.nextLong(120);
            }
            return spec.leaseDurationMillis() + 50 + random.nextLong(300);
        }

        Result result(String backend) {
            List<Grant> list = new ArrayList<>(grants);
            List<long[]> refused = new ArrayList<>(refusals);
            // How far the store's clock lay from the caller's: a grant decided at d, sent at s and answered at a
            // puts the store's offset within [d - a, d - s].
            long offsetLow = Long.MAX_VALUE;
            long offsetHigh = Long.MIN_VALUE;
            long early = 0;
            long late = 0;
            for (Grant g : list) {
                long d = g.decided[0];
                offsetLow = Math.min(offsetLow, d - g.answered);
                offsetHigh = Math.max(offsetHigh, d - g.sent);
                early = Math.max(early, g.sent - d);
                late = Math.max(late, d - g.answered);
            }
            long allowed;
            Check check;
            long uncaused = 0;
            if (spec instanceof LimitSpec.Concurrency c) {
                check = concurrency(list, c.permitLimit(), c.leaseDurationMillis(), offsetLow);
                allowed = c.permitLimit();
            } else {
                // A chain's links are keys of their own, each decided on its own owner's clock.
                List<LimitSpec> keys = spec == CHAIN ? CHAIN.components() : List.of(spec);
                double worst = 0;
                String violation = null;
                allowed = Long.MAX_VALUE;
                for (int k = 0; k < keys.size(); k++) {
                    long[] times = decided(list, k);
                    Check one = rate(times, keys.get(k));
                    worst = Math.max(worst, one.worstRatio);
                    violation = violation != null ? violation : one.violation;
                    allowed = Math.min(allowed,
                            times.length == 0 ? 0 : bound(keys.get(k), times[0], times[times.length - 1]));
                }
                check = new Check(worst, violation);
                // A chain's log also refuses for grants the chain gave back when its bucket refused, which no lease
                // records: no cause can be read for a chain's refusals.
                if (spec != CHAIN && !list.isEmpty()) {
                    uncaused = uncausedRefusals(spec, decided(list, 0), refused, offsetLow, offsetHigh);
                }
            }
            String violation = check.violation;
            if (violation == null && !failures.isEmpty()) {
                violation = "failures, e.g. " + failures.peek();
            }
            return new Result(backend, spec, list.size(), refused.size() + degraded.get(), failed.get(), allowed,
                    check.worstRatio, uncaused, early, late, violation);
        }
    }

    /** The decision times on key {@code k} of every grant, sorted. */
    private static long[] decided(List<Grant> grants, int k) {
        return grants.stream().mapToLong(g -> g.decided[k]).sorted().toArray();
    }

    private record Check(double worstRatio, String violation) {}

    /** Every (first, last) pair of decision times: the grants decided within fit the bound. */
    static Check rate(long[] decided, LimitSpec spec) {
        int n = decided.length;
        double worst = 0;
        String violation = null;
        for (int i = 0; i < n; i++) {
            if (i > 0 && decided[i - 1] == decided[i]) {
                continue; // the first of equal times counts them all
            }
            long s = decided[i];
            for (int j = i; j < n; j++) {
                if (j + 1 < n && decided[j + 1] == decided[j]) {
                    continue; // count every grant decided by then
                }
                long e = decided[j];
                long count = j - i + 1;
                long bound = bound(spec, s, e);
                double ratio = (double) count / bound;
                if (ratio > worst) {
                    worst = ratio;
                }
                if (count > bound && violation == null) {
                    violation = count + " grants decided within [" + s + ", " + e + "] (" + (e - s)
                            + " ms, the store's clock), where at most " + bound + " are allowed";
                }
            }
        }
        return new Check(worst, violation);
    }

    /** The most grants the spec allows decided within {@code [s, e]} (store clock). */
    static long bound(LimitSpec spec, long s, long e) {
        if (spec instanceof LimitSpec.AllOf all) { // every component's bound holds at once
            return all.components().stream().mapToLong(c -> bound(c, s, e)).min().orElseThrow();
        }
        long length = e - s;
        if (spec instanceof LimitSpec.FixedWindow f) {
            return f.permitLimit() * (Math.floorDiv(e, f.windowMillis()) - Math.floorDiv(s, f.windowMillis()) + 1);
        }
        if (spec instanceof LimitSpec.SlidingCounter c) {
            return c.permitLimit() * (Math.floorDiv(e, c.windowMillis()) - Math.floorDiv(s, c.windowMillis()) + 1);
        }
        if (spec instanceof LimitSpec.SlidingWindow w) {
            long segment = w.segmentMillis();
            long segments = Math.floorDiv(e, segment) - Math.floorDiv(s, segment) + 1;
            return w.permitLimit() * ceilDiv(segments, w.segmentsPerWindow());
        }
        if (spec instanceof LimitSpec.SlidingLog l) {
            return l.permitLimit() * ceilDiv(length + 1, l.windowMillis());
        }
        if (spec instanceof LimitSpec.TokenBucket b) {
            return b.tokenLimit() + b.tokensPerPeriod() * (length / b.replenishmentPeriodMillis() + 1);
        }
        if (spec instanceof LimitSpec.Gcra g) {
            return g.burst() + length * g.permitsPerPeriod() / g.periodMillis() + 1;
        }
        throw new IllegalArgumentException("no rate bound for " + spec);
    }

    /**
     * The refusals no decision time within their span could have caused. A refusal sent at {@code s} and answered
     * at {@code a} (caller's clock) was decided within {@code [s + offsetLow, a + offsetHigh]} (store's clock); it
     * had a cause if, for some time {@code x} in there, the grants before {@code x} left no permit. Each test below
     * is a consequence of the algorithm's rule, over grants decided in a range ending at {@code x}; counting the
     * grants over the union of those ranges for every such {@code x} can only find more, so a refusal is counted
     * only when it certainly had no cause.
     */
    static long uncausedRefusals(LimitSpec spec, long[] decided, List<long[]> refusals, long offsetLow,
            long offsetHigh) {
        long uncaused = 0;
        for (long[] r : refusals) {
            long lo = r[0] + offsetLow;
            long hi = r[1] + offsetHigh;
            if (!caused(spec, decided, lo, hi)) {
                uncaused++;
            }
        }
        return uncaused;
    }

    private static boolean caused(LimitSpec spec, long[] decided, long lo, long hi) {
        if (spec instanceof LimitSpec.AllOf all) { // any one component's refusal refuses
            return all.components().stream().anyMatch(c -> caused(c, decided, lo, hi));
        }
        if (spec instanceof LimitSpec.FixedWindow f) { // the limit already taken in the window
            return count(decided, lo - Math.floorMod(lo, f.windowMillis()), hi) >= f.permitLimit();
        }
        if (spec instanceof LimitSpec.SlidingLog l) { // the limit taken within a window
            return count(decided, lo - l.windowMillis() + 1, hi) >= l.permitLimit();
        }
        if (spec instanceof LimitSpec.SlidingWindow w) { // the limit taken in the window's segments
            long segment = w.segmentMillis();
            long first = (Math.floorDiv(lo, segment) - (w.segmentsPerWindow() - 1)) * segment;
            return count(decided, first, hi) >= w.permitLimit();
        }
        if (spec instanceof LimitSpec.SlidingCounter c) { // the estimate never exceeds previous + current
            long window = c.windowMillis();
            return count(decided, lo - Math.floorMod(lo, window) - window, hi) >= c.permitLimit();
        }
        if (spec instanceof LimitSpec.TokenBucket b) {
            // Empty at x: over any k periods before x, at least min(limit, k refills) taken.
            long period = b.replenishmentPeriodMillis();
            for (long k = 1; k <= ceilDiv(b.tokenLimit(), b.tokensPerPeriod()); k++) {
                if (count(decided, lo - k * period, hi) < Math.min(b.tokenLimit(), k * b.tokensPerPeriod())) {
                    return false;
                }
            }
            return true;
        }
        if (spec instanceof LimitSpec.Gcra g) {
            // Refused at x: the arrival time is more than burst - 1 intervals ahead, which takes at least k grants
            // within the k emission intervals before x, for k up to the burst.
            for (long k = 1; k <= g.burst(); k++) {
                long span = ceilDiv(k * g.periodMillis(), g.permitsPerPeriod());
                if (count(decided, lo - span, hi) < k) {
                    return false;
                }
            }
            return true;
        }
        throw new IllegalArgumentException("no refusal rule for " + spec);
    }

    /** How many of the sorted {@code times} lie within {@code [from, to]}. */
    private static long count(long[] times, long from, long to) {
        return Math.max(0, upper(times, to) - upper(times, from - 1));
    }

    /** How many of the sorted {@code times} are at most {@code t}. */
    private static int upper(long[] times, long t) {
        int lo = 0;
        int hi = times.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (times[mid] <= t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /**
     * At no instant more than {@code limit} leases certainly held, on the store's clock: from the grant's decision
     * to the release's request, but no longer than the lease's first duration (whether a renewal came in time is
     * not seen from here, and an overloaded caller's late renewal rightly lets a lease expire; the contract suite
     * tests renewal on its own). The release's request is moved into the store's clock by the lowest offset the
     * grants show, so a lease is never taken to end later than it could have.
     */
    static Check concurrency(List<Grant> grants, long limit, long leaseMillis, long offsetLow) {
        List<long[]> events = new ArrayList<>(); // {time, +1 | -1}
        for (Grant g : grants) {
            long from = g.decided[0];
            long released = g.released == Long.MAX_VALUE ? Long.MAX_VALUE : g.released + offsetLow;
            long to = Math.min(released, from + leaseMillis);
            if (from < to) {
                events.add(new long[] {from, 1});
                events.add(new long[] {to, -1});
            }
        }
        // At equal times the release comes first: a lease released at t and one granted at t never overlap.
        events.sort(Comparator.<long[]>comparingLong(ev -> ev[0]).thenComparingLong(ev -> ev[1]));
        long held = 0;
        long worst = 0;
        String violation = null;
        for (long[] ev : events) {
            held += ev[1];
            if (held > worst) {
                worst = held;
            }
            if (held > limit && violation == null) {
                violation = held + " leases certainly held at once at " + ev[0] + " (the store's clock), where at most "
                        + limit + " are allowed";
            }
        }
        return new Check((double) worst / limit, violation);
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    /** A live change on the real clock: the old spec (330 ms) and the new, longer one (2,370 ms), limit 5. */
    public static List<LimitSpec[]> liveChanges() {
        Duration old = Duration.ofMillis(OLD_MILLIS);
        Duration longer = Duration.ofMillis(NEW_MILLIS);
        return List.of(
                new LimitSpec[] {LimitSpec.slidingLog(5, old), LimitSpec.slidingLog(5, longer)},
                new LimitSpec[] {LimitSpec.fixedWindow(5, old), LimitSpec.fixedWindow(5, longer)},
                new LimitSpec[] {LimitSpec.slidingWindow(5, old, 2), LimitSpec.slidingWindow(5, longer, 2)},
                new LimitSpec[] {LimitSpec.slidingCounter(5, old), LimitSpec.slidingCounter(5, longer)},
                new LimitSpec[] {LimitSpec.tokenBucket(5, 5, old), LimitSpec.tokenBucket(5, 1, longer)});
    }

    /**
     * Every {@link #liveChanges()} pair at once on a real store: five taken by the old spec on the first replica,
     * then the new spec on the last. Touched by the new spec (a refusal) before the old state expires, the key
     * grants nothing more until the new spec's own hold on those five ends; untouched until after the old
     * state's expiry, it starts over with the new spec's full limit. The instants compared are the store's: each
     * grant's decision time, the old state's expiry (the last grant's time plus its reset-after, which is how long
     * the store keeps it), and, where a refusal's time is needed, its send and answer moved into the store's clock
     * by the offsets the five grants show, always in the direction that can only excuse the store. Returns what
     * went wrong, nothing when all held.
     */
    public static List<String> liveChange(String backend, List<RateLimiters> replicas, LimiterOptions options)
            throws InterruptedException {
        List<String> problems = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (LimitSpec[] pair : liveChanges()) {
            Thread t = new Thread(() -> {
                try {
                    String touched = touchedByTheNewSpec(replicas, pair[0], pair[1], options);
                    String untouched = untouchedUntilTheOldExpiry(replicas, pair[0], pair[1], options);
                    for (String p : new String[] {touched, untouched}) {
                        if (p != null) {
                            problems.add(backend + ", " + describe(pair[0]) + " -> " + describe(pair[1]) + ": " + p);
                        }
                    }
                } catch (InterruptedException e) {
                    problems.add(backend + ": interrupted");
                } catch (RuntimeException e) {
                    problems.add(backend + ", " + describe(pair[1]) + ": " + e);
                }
            }, "live-change-" + pair[0].algorithm());
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(TimeUnit.MINUTES.toMillis(2));
        }
        return problems;
    }

    private static final long OLD_MILLIS = 330;
    private static final long NEW_MILLIS = 2_370;
    /**
     * How long past the old state's expiry (the store's clock, estimated from the caller's) the new spec may still
     * see it: the wait for a busy store to catch up, not a tolerance of any check.
     */
    private static final long CATCH_UP_MILLIS = 3_000;

    private static long alignEnd(long t, long window) {
        return t - Math.floorMod(t, window) + window;
    }

    private static void sleepUntil(long millis) throws InterruptedException {
        for (long left = millis - System.currentTimeMillis(); left > 0; left = millis - System.currentTimeMillis()) {
            Thread.sleep(Math.min(left, 50));
        }
    }

    /**
     * The five grants of the old spec, in the store's clock: the first and last decision times, the old state's
     * expiry, and the bounds they put on the store's offset from the caller's clock ({@code store - caller}).
     */
    private record Five(long firstDecided, long lastDecided, long expiresAt, long offsetLow, long offsetHigh) {
        /** The latest the store can have decided a request answered at {@code answered} (caller's clock). */
        long decidedNoLaterThan(long answered) {
            return answered + offsetHigh;
        }

        /** The earliest the store can have decided a request sent at {@code sent} (caller's clock). */
        long decidedNoEarlierThan(long sent) {
            return sent + offsetLow;
        }

        /** The caller's clock at which the store's reaches {@code storeTime}, if its offset holds. */
        long callerTimeOf(long storeTime) {
            return storeTime - offsetLow;
        }

        @Override
        public String toString() {
            return "five decided " + firstDecided + ".." + lastDecided + ", expiring at " + expiresAt
                    + " (the store's clock; its offset from the caller's within [" + offsetLow + ", " + offsetHigh
                    + "] ms)";
        }
    }

    /**
     * Five taken by {@code old} in one of its windows, or null if they were not: one was refused, or the last left
     * room (the window turned between them by the store's clock, which can lag the caller's on a busy machine by
     * more than the caller's alignment allows, so that five grants span two windows without a refusal). The caller
     * then tries a fresh key.
     */
    private static Five fiveTaken(RateLimiter old) throws InterruptedException {
        sleepUntil(alignEnd(System.currentTimeMillis(), OLD_MILLIS) + 25);
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long expires = Long.MIN_VALUE;
        long low = Long.MAX_VALUE;
        long high = Long.MIN_VALUE;
        for (int i = 0; i < 5; i++) {
            long sent = System.currentTimeMillis();
            Lease lease = old.tryAcquire(1);
            long answered = System.currentTimeMillis();
            if (!lease.isAcquired()) {
                return null;
            }
            long decided = DecisionTimes.of(lease)[0];
            first = Math.min(first, decided);
            last = Math.max(last, decided);
            expires = Math.max(expires, decided + lease.resetAfter().toMillis());
            low = Math.min(low, decided - answered);
            high = Math.max(high, decided - sent);
            if (i == 4 && lease.remaining() != 0) {
                return null;
            }
        }
        return new Five(first, last, expires, low, high);
    }

    /**
     * Until when the new spec, having moved the five to its own expiry, grants nothing (the store's clock), for a
     * touch decided no earlier than {@code touched}.
     */
    private static long newHoldsUntil(LimitSpec after, Five five, long touched) {
        if (after instanceof LimitSpec.FixedWindow || after instanceof LimitSpec.SlidingCounter) {
            return alignEnd(touched, NEW_MILLIS);
        }
        if (after instanceof LimitSpec.SlidingWindow) {
            return (Math.floorDiv(touched, NEW_MILLIS / 2) + 2) * (NEW_MILLIS / 2);
        }
        return five.firstDecided + NEW_MILLIS; // the log's entries, the bucket's first refill
    }

    private static String touchedByTheNewSpec(List<RateLimiters> replicas, LimitSpec before, LimitSpec after,
            LimiterOptions options) throws InterruptedException {
        for (int attempt = 0; attempt < 5; attempt++) {
            String name = "live-touched-" + after.algorithm() + "-" + UUID.randomUUID();
            RateLimiter old = replicas.get(0).limiter(name, before, options);
            RateLimiter changed = replicas.get(replicas.size() - 1).limiter(name, after, options);
            Five five = fiveTaken(old);
            if (five == null) {
                continue;
            }
            long touchSent = System.currentTimeMillis();
            Lease touch = changed.tryAcquire(1);
            long touchAnswered = System.currentTimeMillis();
            if (touch.isAcquired()) {
                long decided = DecisionTimes.of(touch)[0];
                if (decided < five.expiresAt) {
                    return "granted on the first ask by the new spec at " + decided
                            + ", before the old state's expiry (" + five + ")";
                }
                continue; // decided after the old state's expiry: a fresh start is right; try again, faster
            }
            if (five.decidedNoLaterThan(touchAnswered) >= five.expiresAt) {
                continue; // the old state may have expired before the touch: try again, faster
            }
            long holds = newHoldsUntil(after, five, five.decidedNoEarlierThan(touchSent));
            int asked = 0;
            while (five.decidedNoEarlierThan(System.currentTimeMillis()) < holds) {
                Lease lease = changed.tryAcquire(1);
                asked++;
                if (lease.isAcquired()) {
                    long decided = DecisionTimes.of(lease)[0];
                    if (decided < holds) {
                        return "granted at " + decided + ", " + (decided - five.firstDecided) + " ms after the five,"
                                + " although the new spec holds them until " + holds + " (started over; " + asked
                                + " asked; " + five + ")";
                    }
                    break; // the store's clock is past the hold already
                }
                Thread.sleep(15);
            }
            // Not a limiter that refuses everything: the new spec grants again once its own hold has passed.
            long touchedLate = five.decidedNoLaterThan(touchAnswered);
            long again = newHoldsUntil(after, new Five(touchedLate, touchedLate, 0, 0, 0), touchedLate)
                    + (after instanceof LimitSpec.SlidingCounter ? NEW_MILLIS : 0);
            sleepUntil(five.callerTimeOf(again));
            long giveUp = System.currentTimeMillis() + CATCH_UP_MILLIS;
            while (System.currentTimeMillis() < giveUp) {
                if (changed.tryAcquire(1).isAcquired()) {
                    return null;
                }
                Thread.sleep(10);
            }
            return "never granted again after the new spec's hold ended at " + again + " (" + five + ")";
        }
        return "could not ask the new spec before the old state expired in 5 attempts";
    }

    private static String untouchedUntilTheOldExpiry(List<RateLimiters> replicas, LimitSpec before, LimitSpec after,
            LimiterOptions options) throws InterruptedException {
        for (int attempt = 0; attempt < 5; attempt++) {
            String name = "live-untouched-" + after.algorithm() + "-" + UUID.randomUUID();
            RateLimiter old = replicas.get(0).limiter(name, before, options);
            RateLimiter changed = replicas.get(replicas.size() - 1).limiter(name, after, options);
            Five five = fiveTaken(old);
            if (five == null) {
                continue;
            }
            sleepUntil(five.callerTimeOf(five.expiresAt) + 5);
            // The first ask must reach the store after the expiry on the store's clock. The old spec's probe (0
            // permits) neither consumes nor moves the state to another spec (the new spec's would: a touch), and
            // sees a full budget once the store's clock has reached the old state's end.
            long giveUp = System.currentTimeMillis() + CATCH_UP_MILLIS;
            long probed = 0;
            long freshAt = -1;
            while (System.currentTimeMillis() < giveUp) {
                probed++;
                if (old.tryAcquire(0).remaining() == 5) {
                    freshAt = System.currentTimeMillis();
                    break;
                }
                Thread.sleep(5);
            }
            if (freshAt < 0) {
                return "the old state outlived its expiry by " + CATCH_UP_MILLIS + " ms: the old spec's probe never saw"
                        + " a fresh budget in " + probed + " probes (" + five + ")";
            }
            int granted = 0;
            long firstDecided = -1;
            for (int i = 0; i < 6; i++) {
                Lease lease = changed.tryAcquire(1);
                if (lease.isAcquired()) {
                    granted++;
                    firstDecided = firstDecided < 0 ? DecisionTimes.of(lease)[0] : firstDecided;
                }
            }
            return granted == 5 ? null : "first asked after the old state's expiry (a probe saw the budget fresh after "
                    + probed + " probes, " + (freshAt - five.callerTimeOf(five.expiresAt)) + " ms past the estimate),"
                    + " the new spec granted " + granted + " of 6, not a fresh 5 (first grant decided at "
                    + firstDecided + "; " + five + ")";
        }
        return "the old spec refused one of its five in 5 attempts";
    }

    /** A short, readable form of a spec for the report. */
    static String describe(LimitSpec spec) {
        if (spec instanceof LimitSpec.FixedWindow f) {
            return "fixedWindow(" + f.permitLimit() + ", " + f.windowMillis() + " ms)";
        }
        if (spec instanceof LimitSpec.SlidingWindow w) {
            return "slidingWindow(" + w.permitLimit() + ", " + w.windowMillis() + " ms, " + w.segmentsPerWindow() + ")";
        }
        if (spec instanceof LimitSpec.SlidingLog l) {
            return "slidingLog(" + l.permitLimit() + ", " + l.windowMillis() + " ms)";
        }
        if (spec instanceof LimitSpec.SlidingCounter c) {
            return "slidingCounter(" + c.permitLimit() + ", " + c.windowMillis() + " ms)";
        }
        if (spec instanceof LimitSpec.TokenBucket b) {
            return "tokenBucket(" + b.tokenLimit() + ", " + b.tokensPerPeriod() + ", " + b.replenishmentPeriodMillis()
                    + " ms)";
        }
        if (spec instanceof LimitSpec.Gcra g) {
            return "gcra(" + g.permitsPerPeriod() + " per " + g.periodMillis() + " ms, burst " + g.burst() + ")";
        }
        if (spec == CHAIN) {
            return "chain(" + String.join(", ", CHAIN.components().stream().map(RealTimeAccuracy::describe).toList()) + ")";
        }
        if (spec instanceof LimitSpec.AllOf all) {
            return "allOf(" + String.join(", ", all.components().stream().map(RealTimeAccuracy::describe).toList()) + ")";
        }
        LimitSpec.Concurrency c = (LimitSpec.Concurrency) spec;
        return "concurrency(" + c.permitLimit() + ", lease " + c.leaseDurationMillis() + " ms)";
    }
}
