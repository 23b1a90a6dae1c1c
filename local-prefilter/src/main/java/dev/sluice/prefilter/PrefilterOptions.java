package dev.sluice.prefilter;

import dev.sluice.limiter.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * How a {@link LocalPrefilter} behaves. Immutable; build with {@link #builder()} or start from
 * {@link #defaults()} with {@link #toBuilder()}.
 */
public final class PrefilterOptions {
    private static final PrefilterOptions DEFAULTS = builder().build();

    private final PrefilterMode mode;
    private final long maximumSize;
    private final double maxBatchFraction;
    private final Duration refillInterval;
    private final Duration maxHold;
    private final Duration clockMargin;
    private final Ticker ticker;
    private final Executor executor;
    private final List<PrefilterListener> listeners;

    private PrefilterOptions(Builder b) {
        this.mode = b.mode;
        this.maximumSize = b.maximumSize;
        this.maxBatchFraction = b.maxBatchFraction;
        this.refillInterval = b.refillInterval;
        this.maxHold = b.maxHold;
        this.clockMargin = b.clockMargin;
        this.ticker = b.ticker;
        this.executor = b.executor;
        this.listeners = List.copyOf(b.listeners);
    }

    /**
     * The refusal cache, up to 100,000 keys, the system's monotonic clock ({@link System#nanoTime()}), a
     * clock margin of 1 ms, cache maintenance on the calling thread, no listeners.
     */
    public static PrefilterOptions defaults() {
        return DEFAULTS;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.mode = mode;
        b.maximumSize = maximumSize;
        b.maxBatchFraction = maxBatchFraction;
        b.refillInterval = refillInterval;
        b.maxHold = maxHold;
        b.clockMargin = clockMargin;
        b.ticker = ticker;
        b.executor = executor;
        b.listeners.addAll(listeners);
        return b;
    }

    /** What is answered locally. */
    public PrefilterMode mode() { return mode; }

    /** The most keys held locally (refusals and allowances together). */
    public long maximumSize() { return maximumSize; }

    /** In allowance mode, the largest batch as a fraction of the limit. */
    public double maxBatchFraction() { return maxBatchFraction; }

    /** In allowance mode, how long a batch should last for a hot key; the batch size adapts towards it. */
    public Duration refillInterval() { return refillInterval; }

    /** In allowance mode, the longest a permit taken from the store may be held before it is granted. */
    public Duration maxHold() { return maxHold; }

    /** How much earlier than the store's instant local refusals and allowances expire; see {@link Builder#clockMargin}. */
    public Duration clockMargin() { return clockMargin; }

    /** The monotonic local clock. */
    public Ticker ticker() { return ticker; }

    /** Runs the cache's maintenance. */
    public Executor executor() { return executor; }

    /** The listeners, in the order added. */
    public List<PrefilterListener> listeners() { return listeners; }

    @Override
    public String toString() {
        return "PrefilterOptions[mode=" + mode + ", maximumSize=" + maximumSize + ", maxBatchFraction="
                + maxBatchFraction + ", refillInterval=" + refillInterval + ", maxHold=" + maxHold + ", clockMargin="
                + clockMargin + ", listeners=" + listeners.size() + "]";
    }

    /** Builds {@link PrefilterOptions}. Each setter validates its argument at once. */
    public static final class Builder {
        private PrefilterMode mode = PrefilterMode.REFUSAL_CACHE;
        private long maximumSize = 100_000;
        private double maxBatchFraction = 0.1;
        private Duration refillInterval = Duration.ofMillis(100);
        private Duration maxHold = Duration.ofSeconds(1);
        private Duration clockMargin = Duration.ofMillis(1);
        private Ticker ticker = Ticker.system();
        private Executor executor = Runnable::run;
        private final List<PrefilterListener> listeners = new ArrayList<>();

        private Builder() {}

        /** Default {@link PrefilterMode#REFUSAL_CACHE}. */
        public Builder mode(PrefilterMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /** Default 100,000; at least 1. Least recently useful keys are evicted past it. */
        public Builder maximumSize(long maximumSize) {
            if (maximumSize < 1) {
                throw new IllegalArgumentException("maximumSize must be at least 1, was " + maximumSize);
            }
            this.maximumSize = maximumSize;
            return this;
        }

        /**
         * Default 0.1; greater than 0, at most 1. The allowance batch never exceeds
         * {@code max(1, floor(limit × fraction))}, which bounds the permits one process can strand.
         */
        public Builder maxBatchFraction(double fraction) {
            if (!(fraction > 0 && fraction <= 1)) {
                throw new IllegalArgumentException("maxBatchFraction must be greater than 0 and at most 1, was "
                        + fraction);
            }
            this.maxBatchFraction = fraction;
            return this;
        }

        /**
         * Default 100 ms; between 1 ms and 1 minute. A batch used up sooner doubles the next one (up to the
         * cap); a key idle for longer than four intervals shrinks it.
         */
        public Builder refillInterval(Duration interval) {
            this.refillInterval = checkDuration("refillInterval", interval, Duration.ofMillis(1), Duration.ofMinutes(1));
            return this;
        }

        /**
         * Default 1 s; between 1 ms and 1 hour. Permits taken from the store are granted locally no later
         * than this after they were asked for, and never after the store's {@code resetAfter} of the batch
         * (so a fixed-window batch never outlives its window).
         */
        public Builder maxHold(Duration maxHold) {
            this.maxHold = checkDuration("maxHold", maxHold, Duration.ofMillis(1), Duration.ofHours(1));
            return this;
        }

        /**
         * Default 1 ms; between 0 and 1 s. Local state expires this much (plus 0.1% of its duration, for
         * clock-rate differences) before the store's instant, measured from when the request was sent. It
         * covers the store clock's millisecond granularity; zero is exact only when both clocks are the same.
         */
        public Builder clockMargin(Duration margin) {
            this.clockMargin = checkDuration("clockMargin", margin, Duration.ZERO, Duration.ofSeconds(1));
            return this;
        }

        /** Default {@link Ticker#system()} ({@link System#nanoTime()}); inject a fake one in tests. */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** Default: the calling thread ({@code Runnable::run}); runs cache maintenance and eviction. */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /** Adds a listener; none by default. */
        public Builder listener(PrefilterListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** The options as set. */
        public PrefilterOptions build() {
            return new PrefilterOptions(this);
        }

        private static Duration checkDuration(String name, Duration d, Duration min, Duration max) {
            Objects.requireNonNull(d, name);
            if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
                throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", was " + d);
            }
            return d;
        }
    }
}
