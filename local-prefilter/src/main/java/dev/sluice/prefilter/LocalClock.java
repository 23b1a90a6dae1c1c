package dev.sluice.prefilter;

import dev.sluice.limiter.Ticker;
import java.time.Duration;

/**
 * The local monotonic clock of a pre-filter (the options' {@link Ticker}, in nanoseconds) and how a duration
 * the store gave ends locally: measured from the send time, a margin early (see {@link RefusalCache}).
 */
final class LocalClock {
    private final Ticker ticker;
    private final long fixedMarginNanos;

    LocalClock(PrefilterOptions options) {
        this.ticker = options.ticker();
        this.fixedMarginNanos = options.clockMargin().toNanos();
    }

    long now() {
        return ticker.read();
    }

    /** The local time at which {@code nanos} of the store's, counted from {@code sent}, end for this process. */
    long end(long sent, long nanos) {
        return sent + nanos - (fixedMarginNanos + nanos / 1000);
    }

    /** {@code d} in nanoseconds, saturated far below overflow so that sums of a few stay exact. */
    static long toNanos(Duration d) {
        return Ticker.toNanosSaturated(d);
    }
}
