package dev.sluice.limiter;

import java.time.Duration;
import java.util.Objects;

/** Argument checks whose messages name the parameter, the value and the rule ({@link IllegalParameterException}). */
final class Checks {
    private Checks() {}

    static long checkRange(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalParameterException(name, name + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    /**
     * The permits one request asks for: between 0 (a probe) and {@code limit}. The message names whose limit it
     * is as {@code before + name + after}, put together only when the check fails (it runs on every request).
     */
    static long checkPermits(long permits, long limit, String before, String name, String after) {
        if (permits < 0 || permits > limit) {
            throw new IllegalArgumentException("permits must be between 0 and " + limit + " (the limit of " + before
                    + name + after + "), was " + permits);
        }
        return permits;
    }

    /**
     * The remaining a key is reset to: between 0 and {@code limit}, and for a concurrency limit only the limit
     * itself (a lease cannot be made up out of nothing). The message names whose limit it is as
     * {@code before + name + after}.
     */
    static long checkRemaining(long remaining, long limit, boolean concurrency, String before, String name,
            String after) {
        if (concurrency && remaining != limit) {
            throw new IllegalArgumentException("remaining must be " + limit + " (the limit of " + before + name + after
                    + "): a concurrency limiter is only reset to a full budget, which drops its leases; was "
                    + remaining);
        }
        if (remaining < 0 || remaining > limit) {
            throw new IllegalArgumentException("remaining must be between 0 and " + limit + " (the limit of " + before
                    + name + after + "), was " + remaining);
        }
        return remaining;
    }

    static void checkProduct(String aName, long a, String bName, long b, long max) {
        checkProduct(aName, aName, a, bName, b, max);
    }

    /** {@code a × b <= max}; {@code parameter} is the one the user set (a derived {@code a} has no name of its own). */
    static void checkProduct(String parameter, String aName, long a, String bName, long b, long max) {
        if (a > max / b) {
            throw new IllegalParameterException(parameter, aName + " × " + bName + " must not exceed " + max + ", was "
                    + a + " × " + b + "; use a shorter duration or a smaller limit");
        }
    }

    /** Converts to whole milliseconds in [min, max]; sub-millisecond parts are rejected, not rounded. */
    static long toMillis(String name, Duration duration, long minMillis, long maxMillis) {
        Objects.requireNonNull(duration, name);
        if (duration.isNegative() || duration.compareTo(Duration.ofMillis(maxMillis)) > 0
                || duration.compareTo(Duration.ofMillis(minMillis)) < 0) {
            throw new IllegalParameterException(name, name + " must be between " + Duration.ofMillis(minMillis) + " and "
                    + Duration.ofMillis(maxMillis) + ", was " + duration);
        }
        if (duration.getNano() % 1_000_000 != 0) {
            throw new IllegalParameterException(name, name + " must be a whole number of milliseconds, was " + duration);
        }
        return duration.toMillis();
    }
}
