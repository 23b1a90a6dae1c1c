package dev.sluice.limiter;

import java.time.Duration;

/**
 * A monotonic time source in nanoseconds, for deadlines, waits and durations: the one Sluice reads for
 * them everywhere, in production ({@link #system()}) and in tests (a fake one). Decisions never read it:
 * they take the wall-clock time of the node running the step (an {@link java.time.InstantSource}).
 */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds from an arbitrary origin; only differences between two readings mean anything. */
    long read();

    /** {@link System#nanoTime()}. */
    static Ticker system() {
        return SystemTicker.INSTANCE;
    }

    /**
     * {@code duration} in nanoseconds, saturated at {@code ±Long.MAX_VALUE / 4} (about 73 years).
     *
     * <p>Why a quarter and not {@code Long.MAX_VALUE}: a saturated value means "as long as it takes" for a wait
     * or a deadline just as well, but it still adds to a reading and to a few other durations without
     * overflowing, so a deadline computed from it never wraps into the past.
     *
     * @throws NullPointerException if {@code duration} is null
     */
    static long toNanosSaturated(Duration duration) {
        long max = Long.MAX_VALUE / 4;
        try {
            return Math.max(-max, Math.min(max, duration.toNanos()));
        } catch (ArithmeticException tooLong) {
            return duration.isNegative() ? -max : max;
        }
    }
}

/** The system ticker, one instance so that it can be recognized without a virtual call. */
enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long read() {
        return System.nanoTime();
    }
}
