package dev.sluice.it.contract;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.Verdict;
import java.lang.reflect.Field;
import java.util.List;

/**
 * The time a store decided a grant at, on its own clock: the time its step ran with (the deciding member's cluster
 * time, never run backwards for a key), which is what the algorithm's bound is stated in. A rate grant's verdict
 * carries it as its token (what a refund needs); a concurrency lease's fencing token holds it in its high bits. The
 * leases are the runtime's package-private classes, so this reads them reflectively: a test's view, on the class
 * path, of what the runtime already holds.
 */
final class DecisionTimes {
    private static final String RUNTIME = "dev.sluice.limiter.runtime.";
    private static final Field RATE_VERDICT = field(RUNTIME + "RateGrant", "verdict");
    private static final Field LEASE_VERDICT = field(RUNTIME + "ConcurrencyLease", "verdict");
    private static final Field CHAIN_LEASES = field(RUNTIME + "Chain$Granted", "leases");
    private static final int TOKEN_TIME_SHIFT = intConstant("dev.sluice.limiter.algorithm.ConcurrencyStep",
            "TOKEN_TIME_SHIFT");

    private DecisionTimes() {}

    /**
     * The decision time of each key a granted lease took permits from, in order: one for a limiter, one per link
     * for a chain.
     *
     * @throws IllegalArgumentException for a lease that carries no store decision (a value or degraded lease)
     */
    static long[] of(Lease lease) {
        try {
            if (CHAIN_LEASES.getDeclaringClass().isInstance(lease)) {
                List<?> links = (List<?>) CHAIN_LEASES.get(lease);
                long[] times = new long[links.size()];
                for (int i = 0; i < times.length; i++) {
                    times[i] = of((Lease) links.get(i))[0];
                }
                return times;
            }
            if (RATE_VERDICT.getDeclaringClass().isInstance(lease)) {
                return new long[] {Overflow.unmarked(((Verdict) RATE_VERDICT.get(lease)).token())};
            }
            if (LEASE_VERDICT.getDeclaringClass().isInstance(lease)) {
                return new long[] {((Verdict) LEASE_VERDICT.get(lease)).token() >>> TOKEN_TIME_SHIFT};
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalArgumentException("no store decision in " + lease);
    }

    private static Field field(String type, String name) {
        try {
            Field f = Class.forName(type).getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static int intConstant(String type, String name) {
        try {
            Field f = Class.forName(type).getDeclaredField(name);
            f.setAccessible(true);
            return f.getInt(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
