package dev.sluice.limiter.algorithm;

import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.LimitSpec;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.TemporalAdjusters;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The calendar window that holds an instant: {@code [B(d), B(d'))} where {@code d} is the first day of the period
 * (the day, the week's first day, the 1st, January 1st), {@code d'} that of the next period and {@code B} a day's
 * start in the zone: its first instant, midnight, or the first instant after midnight where a daylight-saving gap
 * swallows midnight. So a window is whole calendar days however long they are (23 or 25 hours around a change),
 * and the windows tile the time line: every instant lies in exactly one, even where a zone moves its clocks back
 * across midnight and a local date comes twice.
 *
 * <p>The window last computed for a spec is remembered, so a step within it costs a map look-up rather than the
 * zone's rules; that memory is a cache of a pure function of the spec and the instant, the same on every node of
 * the same tz database.
 */
final class CalendarWindows {
    /** Rules remembered at once; past this many, forgotten and computed again. */
    private static final int REMEMBERED = 256;
    private static final Map<LimitSpec.CalendarWindow, Window> LAST = new ConcurrentHashMap<>();

    private CalendarWindows() {}

    /** A window {@code [start, end)} in epoch milliseconds. */
    record Window(long start, long end) {
        boolean holds(long instant) {
            return start <= instant && instant < end;
        }
    }

    /** The window of {@code spec}'s calendar that holds {@code now}. */
    static Window around(LimitSpec.CalendarWindow spec, long now) {
        Window last = LAST.get(spec);
        if (last != null && last.holds(now)) {
            return last;
        }
        Window w = compute(spec.period(), spec.firstDayOfWeek(), spec.zone(), now);
        if (LAST.size() >= REMEMBERED) {
            LAST.clear();
        }
        LAST.put(spec, w);
        return w;
    }

    static Window compute(CalendarPeriod period, DayOfWeek firstDayOfWeek, ZoneId zone, long now) {
        LocalDate first = firstDay(period, firstDayOfWeek, LocalDate.ofInstant(Instant.ofEpochMilli(now), zone));
        long start = startOf(first, zone);
        while (start > now) { // only where clocks went back across midnight: the date's start is still to come
            first = next(period, first, -1);
            start = startOf(first, zone);
        }
        LocalDate following = next(period, first, 1);
        long end = startOf(following, zone);
        while (end <= now) { // the same case the other way round
            first = following;
            start = end;
            following = next(period, first, 1);
            end = startOf(following, zone);
        }
        return new Window(start, end);
    }

    private static LocalDate firstDay(CalendarPeriod period, DayOfWeek firstDayOfWeek, LocalDate day) {
        return switch (period) {
            case DAY -> day;
            case WEEK -> day.with(TemporalAdjusters.previousOrSame(firstDayOfWeek));
            case MONTH -> day.withDayOfMonth(1);
            case YEAR -> day.withDayOfYear(1);
        };
    }

    private static LocalDate next(CalendarPeriod period, LocalDate first, int periods) {
        return switch (period) {
            case DAY -> first.plusDays(periods);
            case WEEK -> first.plusWeeks(periods);
            case MONTH -> first.plusMonths(periods);
            case YEAR -> first.plusYears(periods);
        };
    }

    private static long startOf(LocalDate day, ZoneId zone) {
        return day.atStartOfDay(zone).toInstant().toEpochMilli();
    }
}
