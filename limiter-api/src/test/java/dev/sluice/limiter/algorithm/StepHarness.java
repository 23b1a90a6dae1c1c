package dev.sluice.limiter.algorithm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Function;

/** Test support: a simulated store around {@link Algorithms#step} and shared properties. */
final class StepHarness {
    /** An arbitrary, non-aligned epoch time to start simulations at. */
    static final long BASE = 1_700_000_000_123L;

    private StepHarness() {}

    /**
     * Holds one key's state the way a backend does: runs the step, checks the input was not mutated and
     * that a refusal did not change the state, and keeps the new state when the step returned another
     * instance.
     */
    static final class Store {
        final LimitSpec spec;
        long[] state;
        /** Whether the state was written by this spec's steps (or there is none), not handed in. */
        boolean own;

        Store(LimitSpec spec) {
            this(spec, null);
        }

        Store(LimitSpec spec, long[] state) {
            this.spec = spec;
            this.state = state;
            this.own = state == null;
        }

        Verdict acquire(long now, long permits) {
            return run(now, Op.ACQUIRE, permits, 0);
        }

        Verdict renew(long now, long leaseId) {
            return run(now, Op.RENEW, 0, leaseId);
        }

        Verdict release(long now, long leaseId) {
            return run(now, Op.RELEASE, 0, leaseId);
        }

        Verdict run(long now, Op op, long permits, long leaseId) {
            Verdict v = peek(now, op, permits, leaseId);
            own |= v.state() != state;
            state = v.state();
            return v;
        }

        /** Runs a step without keeping its state. */
        Verdict peek(long now, Op op, long permits, long leaseId) {
            long[] before = state == null ? null : state.clone();
            Verdict v = Algorithms.step(spec, state, now, op, permits, leaseId);
            assertArrayEquals(before, state, "the step mutated its input");
            // A decision that takes nothing writes only to move another spec's state to this spec's shape and
            // expiry (a live change): once moved, the same decision writes nothing, so refusals stay write-free.
            if (!v.granted() && op != Op.ACQUIRE) {
                assertSame(state, v.state(), op + " refused and changed the state");
            }
            boolean tookNothing = (!v.granted() || permits == 0) && op == Op.ACQUIRE;
            if (tookNothing && own) {
                assertSame(state, v.state(), (v.granted() ? "a probe" : "a refusal") + " changed the state");
            }
            if (tookNothing && v.state() != state) {
                assertTrue(v.state() != null, "a decision that took nothing removed the state");
                Verdict again = Algorithms.step(spec, v.state(), now, op, permits, leaseId);
                assertSame(v.state(), again.state(), (v.granted() ? "a probe" : "a refusal")
                        + " changed the state of its own spec");
            }
            if (v.state() != state && v.state() != null) {
                assertEquals(Algorithms.expiresAt(v.state()) - Math.max(now, lastNow()), v.ttlMillis(),
                        "ttl must reach the state's expiry");
                assertTrue(v.ttlMillis() > 0, "a written state must live for a while: " + v.ttlMillis());
            }
            return v;
        }

        Verdict peek(long now, long permits) {
            return peek(now, Op.ACQUIRE, permits, 0);
        }

        long lastNow() {
            return Algorithms.algorithmIdOf(state) < 0 ? Long.MIN_VALUE : state[Algorithms.LAST_NOW];
        }

        Store copy() {
            Store copy = new Store(spec, state == null ? null : state.clone());
            copy.own = own;
            return copy;
        }
    }

    /** Admitted permits in time order, for interval properties. */
    static final class Admissions {
        private long[] times = new long[1024];
        private long[] permits = new long[1024];
        private int size;
        private long total;

        void add(long time, long count) {
            if (size > 0 && time < times[size - 1]) {
                throw new AssertionError("admissions must be added in time order");
            }
            if (size == times.length) {
                times = Arrays.copyOf(times, size * 2);
                permits = Arrays.copyOf(permits, size * 2);
            }
            times[size] = time;
            permits[size] = count;
            size++;
            total += count;
        }

        long total() {
            return total;
        }

        int size() {
            return size;
        }

        /** The most permits admitted in any half-open interval {@code [t, t + length)}. */
        long maxInAnyInterval(long length) {
            long max = 0;
            long sum = 0;
            int hi = 0;
            for (int lo = 0; lo < size; lo++) {
                while (hi < size && times[hi] < times[lo] + length) {
                    sum += permits[hi++];
                }
                max = Math.max(max, sum);
                sum -= permits[lo];
            }
            return max;
        }

        /** Permits admitted in {@code [from, to)}. */
        long in(long from, long to) {
            long sum = 0;
            for (int i = 0; i < size; i++) {
                if (times[i] >= from && times[i] < to) {
                    sum += permits[i];
                }
            }
            return sum;
        }

        /** The most permits admitted in one aligned bucket {@code [k * length, (k + 1) * length)}. */
        long maxInAlignedWindow(long length) {
            long max = 0;
            long sum = 0;
            long bucket = Long.MIN_VALUE;
            for (int i = 0; i < size; i++) {
                long b = Math.floorDiv(times[i], length);
                if (b != bucket) {
                    bucket = b;
                    sum = 0;
                }
                sum += permits[i];
                max = Math.max(max, sum);
            }
            return max;
        }
    }

    /** Random permit counts: often 1, sometimes a probe, otherwise up to the limit. */
    static long randomPermits(Random rnd, long limit) {
        int kind = rnd.nextInt(10);
        if (kind < 4) {
            return 1;
        }
        if (kind == 4) {
            return 0;
        }
        return 1 + rnd.nextLong(limit);
    }

    /**
     * For many random specs and histories, checks that every refusal's retryAfter {@code r} at {@code t}
     * is exact: the same request fails at {@code t + r - 1} and succeeds at {@code t + r}.
     *
     * @param specs draws a spec
     * @param meanGap the mean gap between arrivals for a spec, in ms: short enough that demand exceeds supply
     */
    static void assertRetryAfterExact(long seed, int specCount, int stepsPerSpec,
            Function<Random, LimitSpec> specs, Function<LimitSpec, Long> meanGap) {
        Random rnd = new Random(seed);
        long refusals = 0;
        long steps = 0;
        for (int s = 0; s < specCount; s++) {
            LimitSpec spec = specs.apply(rnd);
            long gap = Math.max(1, meanGap.apply(spec));
            Store store = new Store(spec);
            long now = BASE + rnd.nextInt(1_000_000);
            for (int i = 0; i < stepsPerSpec; i++) {
                now += rnd.nextLong(2 * gap + 1);
                long permits = randomPermits(rnd, spec.limit());
                Verdict v = store.peek(now, permits);
                steps++;
                if (v.granted()) {
                    assertEquals(Verdict.NO_RETRY, v.retryAfterMillis(), "a grant has no retryAfter");
                    store.state = v.state();
                    continue;
                }
                refusals++;
                long r = v.retryAfterMillis();
                String where = spec + " " + permits + " permits at " + now + ", state "
                        + Arrays.toString(store.state) + ": retryAfter " + r;
                assertTrue(r > 0, where + " must be positive");
                long[] copy = store.state == null ? null : store.state.clone();
                assertFalse(Algorithms.acquire(spec, copy, now + r - 1, permits).granted(), where + " is late");
                assertTrue(Algorithms.acquire(spec, copy, now + r, permits).granted(), where + " is early");
                assertArrayEquals(store.state, copy, "the step mutated its input");
            }
        }
        assertTrue(refusals > steps / 10, "too few refusals to exercise retryAfter: " + refusals + " of " + steps);
    }

    /** The time over which a spec's limit applies: window, period or lease duration. */
    static long horizon(LimitSpec spec) {
        if (spec instanceof LimitSpec.FixedWindow s) return s.windowMillis();
        if (spec instanceof LimitSpec.SlidingWindow s) return s.windowMillis();
        if (spec instanceof LimitSpec.SlidingLog s) return s.windowMillis();
        if (spec instanceof LimitSpec.SlidingCounter s) return s.windowMillis();
        if (spec instanceof LimitSpec.TokenBucket s) return s.replenishmentPeriodMillis() * s.tokenLimit() / s.tokensPerPeriod();
        if (spec instanceof LimitSpec.Gcra s) return s.periodMillis() * s.burst() / s.permitsPerPeriod();
        if (spec instanceof LimitSpec.CalendarWindow s) return switch (s.period()) { // the shortest such window
            case DAY -> 23 * 3_600_000L;
            case WEEK -> 7 * 86_400_000L - 3_600_000L;
            case MONTH -> 28 * 86_400_000L - 3_600_000L;
            case YEAR -> 365 * 86_400_000L - 3_600_000L;
        };
        if (spec instanceof LimitSpec.AllOf s) return s.components().stream().mapToLong(StepHarness::horizon).max().orElseThrow();
        return ((LimitSpec.Concurrency) spec).leaseDurationMillis();
    }

    /**
     * Runs one random operation against the store at a time after {@code now}, with demand roughly
     * twice the supply; for concurrency also renews and releases random leases. Returns the new time.
     */
    static long randomStep(Store store, Random rnd, long now, java.util.List<Long> leases) {
        long gap = Math.max(1, horizon(store.spec) / Math.max(1, store.spec.limit()));
        long t = now + rnd.nextLong(gap + 1);
        if (store.spec instanceof LimitSpec.Concurrency && !leases.isEmpty() && rnd.nextInt(3) == 0) {
            long id = leases.get(rnd.nextInt(leases.size()));
            Verdict v = rnd.nextBoolean() ? store.renew(t, id) : store.release(t, id);
            if (!v.granted()) {
                leases.remove(Long.valueOf(id));
            }
            return t;
        }
        Verdict v = store.acquire(t, randomPermits(rnd, store.spec.limit()));
        if (v.token() != 0) {
            leases.add(v.token());
        }
        return t;
    }

    /** Asserts two steps decided the same and wrote the same (or both nothing). */
    static void assertSameOutcome(Verdict expected, long[] expectedInput, Verdict actual, long[] actualInput,
            String what) {
        assertEquals(expected, actual, what);
        assertEquals(expected.stateChanged(expectedInput), actual.stateChanged(actualInput), what + ": write");
        if (expected.stateChanged(expectedInput)) {
            assertArrayEquals(expected.state(), actual.state(), what + ": state");
            assertEquals(expected.ttlMillis(), actual.ttlMillis(), what + ": ttl");
        }
    }

    /** One spec of every algorithm. */
    static LimitSpec[] oneOfEach() {
        return new LimitSpec[] {
            new LimitSpec.FixedWindow(5, 1_000),
            new LimitSpec.SlidingWindow(5, 1_000, 10),
            new LimitSpec.SlidingLog(5, 1_000),
            new LimitSpec.SlidingCounter(5, 1_000),
            new LimitSpec.TokenBucket(5, 2, 500),
            new LimitSpec.Gcra(2, 1_000, 5),
            new LimitSpec.Concurrency(5, 1_000),
        };
    }
}
