package dev.sluice.limiter.local;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told to: for deterministic tests of limiters. Thread-safe.
 */
public final class ManualClock implements InstantSource {
    private final AtomicLong millis;

    /** A clock at {@code start}. */
    public ManualClock(Instant start) {
        this.millis = new AtomicLong(Objects.requireNonNull(start, "start").toEpochMilli());
    }

    /** A clock at an arbitrary, fixed instant (2030-01-01T00:00:00Z). */
    public ManualClock() {
        this(Instant.parse("2030-01-01T00:00:00Z"));
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public long millis() {
        return millis.get();
    }

    /**
     * Moves the clock forward (or backward, with a negative duration, to test clocks that jump back).
     *
     * @return the new time in epoch milliseconds
     */
    public long advance(Duration by) {
        return millis.addAndGet(Objects.requireNonNull(by, "by").toMillis());
    }

    /** Sets the clock to an instant. */
    public void set(Instant instant) {
        millis.set(Objects.requireNonNull(instant, "instant").toEpochMilli());
    }
}
