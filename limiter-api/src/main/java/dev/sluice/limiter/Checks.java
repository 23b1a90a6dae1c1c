package dev.sluice.limiter;

import java.time.Duration;
import java.util.Objects;

/** Argument checks whose messages name the parameter, the value and the rule. */
final class Checks {
    private Checks() {}

    static long checkRange(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    static void checkProduct(String aName, long a, String bName, long b, long max) {
        if (a > max / b) {
            throw new IllegalArgumentException(aName + " × " + bName + " must not exceed " + max + ", was " + a + " × "
                    + b + "; use a shorter duration or a smaller limit");
        }
    }

    /** Converts to whole milliseconds in [min, max]; sub-millisecond parts are rejected, not rounded. */
    static long toMillis(String name, Duration duration, long minMillis, long maxMillis) {
        Objects.requireNonNull(duration, name);
        if (duration.isNegative() || duration.compareTo(Duration.ofMillis(maxMillis)) > 0
                || duration.compareTo(Duration.ofMillis(minMillis)) < 0) {
            throw new IllegalArgumentException(name + " must be between " + Duration.ofMillis(minMillis) + " and "
                    + Duration.ofMillis(maxMillis) + ", was " + duration);
        }
        if (duration.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException(name + " must be a whole number of milliseconds, was " + duration);
        }
        return duration.toMillis();
    }
}
