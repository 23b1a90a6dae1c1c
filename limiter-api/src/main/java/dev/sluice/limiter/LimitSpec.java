package dev.sluice.limiter;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

/**
 * What a limiter enforces: an algorithm and its parameters. Every spec is an immutable, validated
 * record; invalid values fail at construction with an {@link IllegalArgumentException} that names the
 * field, the value and the allowed range. Durations are whole milliseconds. Each algorithm is described once
 * ({@link AlgorithmDescription}): its parameters' bounds are what a record's validation checks, and a spec of a
 * type no description names is refused by every limiter.
 *
 * <p>Which to choose:
 * <ul>
 *   <li>{@link FixedWindow}: cheapest state; allows bursts of up to twice the limit across a boundary.
 *   <li>{@link CalendarWindow}: a fixed window that is a day, week, month or year of a time zone's calendar
 *       ("10,000 a month, from the 1st").
 *   <li>{@link SlidingWindow}: a window split into segments; smooths the boundary burst.
 *   <li>{@link SlidingLog}: exact; state grows with the limit.
 *   <li>{@link SlidingCounter}: two counters, weighted estimate; cheap and smooth, approximate.
 *   <li>{@link TokenBucket}: a steady rate with a bounded burst.
 *   <li>{@link Gcra}: a steady rate with a burst, one long of state, exact retry-after.
 *   <li>{@link Concurrency}: how many may be in flight at once, with leases that expire.
 *   <li>{@link AllOf}: several rate limits on one key at once ("10 per second and 1,000 per day"), decided
 *       in one step.
 * </ul>
 */
public interface LimitSpec {

    /** Largest permit limit any spec accepts; keeps all arithmetic on the state free of overflow. */
    long MAX_LIMIT = 1_000_000_000L;

    /** Longest window or period any spec accepts: 366 days. */
    Duration MAX_DURATION = Duration.ofDays(366);

    /** Largest permit limit for the sliding log, whose state holds the time of every permit it counts. */
    long MAX_LOG_LIMIT = 100_000L;

    /** Bound on products of limits and durations, so that arithmetic on the state cannot overflow. */
    long MAX_PRODUCT = 1L << 61;

    /** Default lease duration of a {@link Concurrency} limiter. */
    Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(30);

    /** The {@link #algorithm()} name of fixed window specs. */
    String FIXED_WINDOW = "fixed-window";
    /** The {@link #algorithm()} name of sliding window specs. */
    String SLIDING_WINDOW = "sliding-window";
    /** The {@link #algorithm()} name of sliding log specs. */
    String SLIDING_LOG = "sliding-log";
    /** The {@link #algorithm()} name of sliding counter specs. */
    String SLIDING_COUNTER = "sliding-counter";
    /** The {@link #algorithm()} name of token bucket specs. */
    String TOKEN_BUCKET = "token-bucket";
    /** The {@link #algorithm()} name of gcra specs. */
    String GCRA = "gcra";
    /** The {@link #algorithm()} name of concurrency specs. */
    String CONCURRENCY = "concurrency";
    /** The {@link #algorithm()} name of composite specs ({@link #allOf}). */
    String ALL_OF = "all-of";
    /** The {@link #algorithm()} name of calendar window specs. */
    String CALENDAR_WINDOW = "calendar-window";
    /** Every algorithm's name, in the order of their ids: {@link AlgorithmDescription#all()}'s names. */
    List<String> ALGORITHMS = new AlgorithmNames();

    /** The most permits one request may ask for. */
    long limit();

    /** The algorithm's stable, short name, e.g. {@code "token-bucket"}: its {@link AlgorithmDescription#name()}. */
    default String algorithm() {
        return AlgorithmDescription.of(this).name();
    }

    /**
     * Checks the permits one request asks for: between 0 (a probe, which consumes nothing) and
     * {@link #limit()}.
     *
     * @param limiter the name of the limiter asked, for the message; {@code null} for one known only by this spec
     * @return {@code permits}
     * @throws IllegalArgumentException naming the value, the bound and whose bound it is
     */
    default long checkPermits(long permits, String limiter) {
        return limiter == null ? Checks.checkPermits(permits, limit(), "this ", algorithm(), " limiter")
                : Checks.checkPermits(permits, limit(), "'", limiter, "'");
    }

    /**
     * Checks the remaining a key is reset to: between 0 and {@link #limit()}; for a {@link Concurrency} spec only
     * {@link #limit()} (a full budget, which drops the key's leases).
     *
     * @param limiter the name of the limiter asked, for the message; {@code null} for one known only by this spec
     * @return {@code remaining}
     * @throws IllegalArgumentException naming the value, the bound and whose bound it is
     */
    default long checkRemaining(long remaining, String limiter) {
        boolean concurrency = this instanceof Concurrency;
        return limiter == null ? Checks.checkRemaining(remaining, limit(), concurrency, "this ", algorithm(), " limiter")
                : Checks.checkRemaining(remaining, limit(), concurrency, "'", limiter, "'");
    }

    /** Fixed windows aligned to the epoch, each admitting up to {@code permitLimit}. */
    static FixedWindow fixedWindow(long permitLimit, Duration window) {
        return new FixedWindow(permitLimit, millis(FixedWindow.class, "window", window));
    }

    /** A window of {@code segmentsPerWindow} segments; permits return when their segment leaves the window. */
    static SlidingWindow slidingWindow(long permitLimit, Duration window, int segmentsPerWindow) {
        return new SlidingWindow(permitLimit, millis(SlidingWindow.class, "window", window),
                segmentsPerWindow);
    }

    /** Exact: at most {@code permitLimit} admissions in any interval one window long. */
    static SlidingLog slidingLog(long permitLimit, Duration window) {
        return new SlidingLog(permitLimit, millis(SlidingLog.class, "window", window));
    }

    /** The previous window's count weighted by its overlap, plus the current window's count. */
    static SlidingCounter slidingCounter(long permitLimit, Duration window) {
        return new SlidingCounter(permitLimit, millis(SlidingCounter.class, "window", window));
    }

    /** Starts full at {@code tokenLimit}; adds {@code tokensPerPeriod} every {@code replenishmentPeriod}. */
    static TokenBucket tokenBucket(long tokenLimit, long tokensPerPeriod, Duration replenishmentPeriod) {
        return new TokenBucket(tokenLimit, tokensPerPeriod,
                millis(TokenBucket.class, "replenishmentPeriod", replenishmentPeriod));
    }

    /** Generic cell rate: {@code permitsPerPeriod} per {@code period}, up to {@code burst} at once. */
    static Gcra gcra(long permitsPerPeriod, Duration period, long burst) {
        return new Gcra(permitsPerPeriod, millis(Gcra.class, "period", period), burst);
    }

    /** At most {@code permitLimit} permits held at once; each lease expires after {@code leaseDuration}. */
    static Concurrency concurrency(long permitLimit, Duration leaseDuration) {
        return new Concurrency(permitLimit,
                millis(Concurrency.class, "leaseDuration", leaseDuration));
    }

    /**
     * Several rate limits on one key, decided in one atomic step: granted only if every component grants,
     * and then the permits are taken from every component; a refusal takes nothing from any. Components
     * are rate specs (not {@link Concurrency}, not another composite), 2 to {@value AllOf#MAX_COMPONENTS}.
     *
     * @throws IllegalArgumentException naming the bad component and its index
     */
    static AllOf allOf(LimitSpec... components) {
        java.util.Objects.requireNonNull(components, "components");
        return new AllOf(java.util.Arrays.asList(components));
    }

    /**
     * Windows that are days, weeks (from Monday), months or years of {@code zone}'s calendar, each admitting up to
     * {@code permitLimit}: {@code calendarWindow(10_000, CalendarPeriod.MONTH, ZoneId.of("Europe/Paris"))} admits
     * 10,000 from midnight of the 1st in Paris to midnight of the next 1st. A day with a daylight-saving change is
     * one window of 23 or 25 hours; {@code resetAfter} and {@code retryAfter} count to the next boundary.
     *
     * @param zone an offset ({@link java.time.ZoneOffset}) or a region of the tz database, which every node that
     *     decides must have (its own tz database resolves it)
     * @throws IllegalArgumentException naming the bad value
     */
    static CalendarWindow calendarWindow(long permitLimit, CalendarPeriod period, ZoneId zone) {
        return new CalendarWindow(permitLimit, period, zone, CalendarWindow.DEFAULT_FIRST_DAY_OF_WEEK);
    }

    /**
     * Calendar windows ({@link #calendarWindow(long, CalendarPeriod, ZoneId)}) whose weeks start on
     * {@code firstDayOfWeek}; only a {@link CalendarPeriod#WEEK} period takes a first day other than Monday.
     */
    static CalendarWindow calendarWindow(long permitLimit, CalendarPeriod period, ZoneId zone,
            DayOfWeek firstDayOfWeek) {
        return new CalendarWindow(permitLimit, period, zone, firstDayOfWeek);
    }

    /** A concurrency limiter with the default lease duration of 30 seconds. */
    static Concurrency concurrency(long permitLimit) {
        return concurrency(permitLimit, DEFAULT_LEASE_DURATION);
    }

    /** A duration parameter of {@code type}'s algorithm in whole milliseconds, within the bounds it describes. */
    private static long millis(Class<? extends LimitSpec> type, String parameter, Duration value) {
        return AlgorithmDescription.of(type).parameter(parameter).orElseThrow().valueOf(value);
    }

    /** Fixed windows aligned to the epoch. */
    record FixedWindow(long permitLimit, long windowMillis) implements LimitSpec {
        public FixedWindow {
            AlgorithmDescription.of(FixedWindow.class).check(permitLimit, windowMillis);
        }

        @Override public long limit() { return permitLimit; }
        public Duration window() { return Duration.ofMillis(windowMillis); }
    }

    /** A window split into equal segments aligned to the epoch. */
    record SlidingWindow(long permitLimit, long windowMillis, int segmentsPerWindow) implements LimitSpec {
        public static final int MAX_SEGMENTS = 1_000;

        public SlidingWindow {
            AlgorithmDescription.of(SlidingWindow.class).check(permitLimit, windowMillis, segmentsPerWindow);
            if (segmentsPerWindow > windowMillis) {
                throw new IllegalParameterException("segmentsPerWindow", "segmentsPerWindow must be between 1 and "
                        + windowMillis + " (segments of at least 1 ms in a window of " + windowMillis + " ms), was "
                        + segmentsPerWindow);
            }
            if (windowMillis % segmentsPerWindow != 0) {
                throw new IllegalParameterException("segmentsPerWindow",
                        "window must be a whole number of milliseconds per segment: " + windowMillis + " ms is not divisible by segmentsPerWindow " + segmentsPerWindow);
            }
        }

        @Override public long limit() { return permitLimit; }
        public Duration window() { return Duration.ofMillis(windowMillis); }
        public long segmentMillis() { return windowMillis / segmentsPerWindow; }
    }

    /** The admission time of every permit (kept as runs of times). */
    record SlidingLog(long permitLimit, long windowMillis) implements LimitSpec {
        public SlidingLog {
            AlgorithmDescription.of(SlidingLog.class).check(permitLimit, windowMillis);
        }

        @Override public long limit() { return permitLimit; }
        public Duration window() { return Duration.ofMillis(windowMillis); }
    }

    /** Two epoch-aligned window counters with an overlap-weighted estimate. */
    record SlidingCounter(long permitLimit, long windowMillis) implements LimitSpec {
        public SlidingCounter {
            AlgorithmDescription.of(SlidingCounter.class).check(permitLimit, windowMillis);
            Checks.checkProduct("permitLimit", permitLimit, "windowMillis", windowMillis, MAX_PRODUCT);
        }

        @Override public long limit() { return permitLimit; }
        public Duration window() { return Duration.ofMillis(windowMillis); }
    }

    /** A bucket of {@code tokenLimit} tokens refilled in whole periods. */
    record TokenBucket(long tokenLimit, long tokensPerPeriod, long replenishmentPeriodMillis) implements LimitSpec {
        public TokenBucket {
            AlgorithmDescription.of(TokenBucket.class).check(tokenLimit, tokensPerPeriod, replenishmentPeriodMillis);
            long periodsToFill = (tokenLimit + tokensPerPeriod - 1) / tokensPerPeriod;
            Checks.checkProduct("replenishmentPeriod", "periods to fill the bucket", periodsToFill, "replenishmentPeriodMillis",
                    replenishmentPeriodMillis, MAX_PRODUCT);
        }

        @Override public long limit() { return tokenLimit; }
        public Duration replenishmentPeriod() { return Duration.ofMillis(replenishmentPeriodMillis); }
    }

    /** Generic cell rate algorithm: emission interval {@code period / permitsPerPeriod}, tolerance {@code burst}. */
    record Gcra(long permitsPerPeriod, long periodMillis, long burst) implements LimitSpec {
        public Gcra {
            AlgorithmDescription.of(Gcra.class).check(permitsPerPeriod, periodMillis, burst);
            Checks.checkProduct("burst", burst, "periodMillis", periodMillis, MAX_PRODUCT);
        }

        @Override public long limit() { return burst; }
        public Duration period() { return Duration.ofMillis(periodMillis); }
    }

    /**
     * Windows aligned to a time zone's calendar ({@link #calendarWindow}): each day, week, month or year admits up
     * to {@code permitLimit}.
     *
     * @param permitLimit permits per window
     * @param period the calendar unit of a window
     * @param zone the time zone whose midnights bound the windows; a fixed offset under a prefix
     *     ({@code UTC+01:00}) is kept as the offset ({@code +01:00}), as it travels
     * @param firstDayOfWeek the day a week starts on; Monday unless the period is {@link CalendarPeriod#WEEK}
     */
    record CalendarWindow(long permitLimit, CalendarPeriod period, ZoneId zone, DayOfWeek firstDayOfWeek)
            implements LimitSpec {
        /** The first day of a week unless one is given: Monday, as ISO-8601 has it. */
        public static final DayOfWeek DEFAULT_FIRST_DAY_OF_WEEK = DayOfWeek.MONDAY;

        public CalendarWindow {
            java.util.Objects.requireNonNull(period, "period");
            java.util.Objects.requireNonNull(zone, "zone");
            java.util.Objects.requireNonNull(firstDayOfWeek, "firstDayOfWeek");
            long zoneCode = TimeZones.code("zone", zone);
            AlgorithmDescription.of(CalendarWindow.class).check(permitLimit, period.ordinal(), zoneCode,
                    firstDayOfWeek.ordinal());
            zone = TimeZones.zone("zone", zoneCode); // as the deciding node reads it: UTC+01:00 is +01:00
            if (period != CalendarPeriod.WEEK && firstDayOfWeek != DEFAULT_FIRST_DAY_OF_WEEK) {
                throw new IllegalParameterException("firstDayOfWeek", "firstDayOfWeek applies to a week only; a "
                        + period.name().toLowerCase(java.util.Locale.ROOT) + " does not start on a day of the week,"
                        + " was " + firstDayOfWeek + " with period " + period);
            }
        }

        @Override public long limit() { return permitLimit; }
    }

    /** Leases that hold permits until released or expired. */
    record Concurrency(long permitLimit, long leaseDurationMillis) implements LimitSpec {
        /** Shortest lease: renewal must be able to run well before expiry. */
        public static final long MIN_LEASE_MILLIS = 30;
        /** Largest limit: the state holds one entry per live lease. */
        public static final long MAX_CONCURRENCY_LIMIT = 100_000L;

        public Concurrency {
            AlgorithmDescription.of(Concurrency.class).check(permitLimit, leaseDurationMillis);
        }

        @Override public long limit() { return permitLimit; }
        public Duration leaseDuration() { return Duration.ofMillis(leaseDurationMillis); }
    }

    /**
     * Several rate limits decided as one ({@link #allOf}). The step grants a request only if each component
     * would; {@code remaining} is the smallest of the components', {@code retryAfter} the latest of those that
     * refuse (the earliest instant at which every one grants, since waiting never lowers what a rate
     * component allows), {@code resetAfter} and the state's lifetime the longest. {@link #limit()}, the most
     * one request may ask for, is the smallest component limit.
     */
    record AllOf(List<LimitSpec> components) implements LimitSpec {
        /** Most components in one composite. */
        public static final int MAX_COMPONENTS = 8;

        public AllOf {
            java.util.Objects.requireNonNull(components, "components");
            components = List.copyOf(components);
            if (components.size() < 2 || components.size() > MAX_COMPONENTS) {
                throw new IllegalParameterException("components", "a composite needs 2 to " + MAX_COMPONENTS
                        + " components, was " + components.size());
            }
            for (int i = 0; i < components.size(); i++) {
                LimitSpec c = components.get(i);
                AlgorithmDescription.Kind kind = AlgorithmDescription.of(c).kind();
                if (kind == AlgorithmDescription.Kind.COMPOSITE) {
                    throw new IllegalParameterException("components", "component " + i + " is itself a composite ("
                            + c + "); list its components in this one instead");
                }
                if (kind == AlgorithmDescription.Kind.CONCURRENCY) {
                    throw new IllegalParameterException("components", "component " + i + " is a concurrency limit ("
                            + c + "); a composite holds rate limits only, since a lease that returns its permits on"
                            + " release has no meaning for a window or a bucket: use a separate concurrency limiter");
                }
            }
        }

        @Override public long limit() {
            long min = Long.MAX_VALUE;
            for (LimitSpec c : components) {
                min = Math.min(min, c.limit());
            }
            return min;
        }

    }
}
