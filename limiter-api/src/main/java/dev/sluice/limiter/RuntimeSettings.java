package dev.sluice.limiter;

import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What the runtime shared by every backend runs on: the {@link Ticker} for deadlines and waits, and the
 * scheduler for deadlines, retries, the wait queue and lease renewal. Immutable.
 *
 * <p>By default the runtime starts one daemon thread of its own and shuts it down on close. A scheduler
 * given here is the caller's: Sluice never shuts it down, and its tasks are short (they hand a decision to
 * the store, or complete a future). A ticker given here must advance with the scheduler's notion of time
 * (tests pair a fake ticker with a scheduler driven by the same fake time).
 *
 * @param ticker for deadlines and waits; {@link Ticker#system()} by default
 * @param scheduler the caller's scheduler, or {@code null} for one the runtime owns
 */
public record RuntimeSettings(Ticker ticker, ScheduledExecutorService scheduler) {
    public RuntimeSettings {
        Objects.requireNonNull(ticker, "ticker");
    }

    /** The system ticker and a scheduler thread of the runtime's own. */
    public static RuntimeSettings defaults() {
        return new RuntimeSettings(Ticker.system(), null);
    }

    /** These settings with another ticker. */
    public RuntimeSettings withTicker(Ticker ticker) {
        return new RuntimeSettings(ticker, scheduler);
    }

    /** These settings with the caller's scheduler, which Sluice never shuts down. */
    public RuntimeSettings withScheduler(ScheduledExecutorService scheduler) {
        return new RuntimeSettings(ticker, Objects.requireNonNull(scheduler, "scheduler"));
    }
}
