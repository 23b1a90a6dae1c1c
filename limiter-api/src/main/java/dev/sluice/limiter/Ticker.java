package dev.sluice.limiter;

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
}

/** The system ticker, one instance so that it can be recognized without a virtual call. */
enum SystemTicker implements Ticker {
    INSTANCE;

    @Override
    public long read() {
        return System.nanoTime();
    }
}
