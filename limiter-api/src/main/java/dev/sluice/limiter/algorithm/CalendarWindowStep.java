package dev.sluice.limiter.algorithm;

import static dev.sluice.limiter.algorithm.Algorithms.HEADER_WORDS;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.AlgorithmDescription.Parameter;
import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.LimitSpec;
import java.time.DayOfWeek;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * Windows aligned to a time zone's calendar ({@link LimitSpec.CalendarWindow}): the fixed window's rule
 * ({@link FixedWindowStep#inWindow}) over the bounds {@link CalendarWindows} computes, where the step runs, from the
 * clock of the node that runs it. State: window start, count, the fixed window's layout, so a live change between a
 * fixed and a calendar window keeps the count as a change of window length does.
 *
 * <p>Four parameters travel in three words: the period and the first day of the week share one (the period in its
 * low byte), the zone takes one (an offset's seconds, or a region's code resolved by the deciding node's tz
 * database).
 */
public final class CalendarWindowStep implements Algorithm {
    /** Its state id. */
    static final int ID = 9;

    private static final Parameter PERIOD = Parameter.choice("period", "period", CalendarPeriod.class,
            "the calendar unit of a window");
    private static final Parameter ZONE = Parameter.timeZone("zone", "zone",
            "the time zone whose midnights bound the windows").withDefaultOf(ZoneOffset.UTC);
    private static final Parameter FIRST_DAY_OF_WEEK = Parameter.choice("firstDayOfWeek", "first-day-of-week",
            DayOfWeek.class, "the day a week starts on (a week only)")
            .withDefaultOf(LimitSpec.CalendarWindow.DEFAULT_FIRST_DAY_OF_WEEK);

    static final AlgorithmDescription DESCRIPTION = AlgorithmDescription
            .builder(ID, LimitSpec.CALENDAR_WINDOW, LimitSpec.CalendarWindow.class)
            .summary("windows that are days, weeks, months or years of a time zone's calendar, each admitting up to"
                    + " the limit; up to twice the limit across a boundary")
            .parameters(Parameters.permitLimit("permits per calendar window", LimitSpec.MAX_LIMIT), PERIOD, ZONE,
                    FIRST_DAY_OF_WEEK)
            .factory(v -> new LimitSpec.CalendarWindow(v[0], (CalendarPeriod) PERIOD.named(v[1]),
                            (ZoneId) ZONE.named(v[2]), (DayOfWeek) FIRST_DAY_OF_WEEK.named(v[3])),
                    s -> new long[] {s.permitLimit(), s.period().ordinal(), ZONE.valueOf(s.zone()),
                        s.firstDayOfWeek().ordinal()})
            .packed(3, v -> new long[] {v[0], v[1] | v[3] << 8, v[2]},
                    w -> new long[] {w[0], w[1] & 0xFF, w[2], w[1] >> 8})
            .rate(AlgorithmDescription.Accuracy.OTHER_RULE)
            .build();

    /** For the service loader. */
    public CalendarWindowStep() {}

    @Override
    public AlgorithmDescription description() {
        return DESCRIPTION;
    }

    @Override
    public Verdict run(LimitSpec spec, long[] state, long now, Op op, long permits, long leaseId) {
        LimitSpec.CalendarWindow calendar = (LimitSpec.CalendarWindow) spec;
        CalendarWindows.Window w = CalendarWindows.around(calendar, now);
        return FixedWindowStep.inWindow(ID, calendar.permitLimit(), w.start(), w.end(), state, now, permits);
    }

    @Override
    public long[] refunded(LimitSpec spec, long[] state, long now, long permits, long at) {
        CalendarWindows.Window w = CalendarWindows.around((LimitSpec.CalendarWindow) spec, at);
        return FixedWindowStep.refundIn(w.start(), w.end(), state, permits);
    }

    @Override
    public boolean isWellFormed(long[] state) {
        return state.length == HEADER_WORDS + 2;
    }

    /** Its state and a fixed window's are one layout: a live change between the two keeps the count. */
    @Override
    public boolean readsStateOf(int algorithmId) {
        return algorithmId == ID || algorithmId == FixedWindowStep.ID;
    }

    /**
     * The longest window of the period, with a day to spare for a zone's changes of offset (a day of 25 hours, a
     * country moving across the date line): 2 days, 8 days, 32 days, 367 days.
     */
    @Override
    public long longestLifetimeMillis(LimitSpec spec) {
        long day = 86_400_000L;
        return switch (((LimitSpec.CalendarWindow) spec).period()) {
            case DAY -> 2 * day;
            case WEEK -> 8 * day;
            case MONTH -> 32 * day;
            case YEAR -> 367 * day;
        };
    }

    /** The same window keeps the higher count; otherwise the newer window. */
    @Override
    public long[] merge(long[] a, long[] b) {
        return StateMerge.windowCounts(a, b, 1);
    }
}
