package dev.sluice.limiter;

/**
 * The calendar unit a {@link LimitSpec.CalendarWindow} counts in: each window starts on the unit's boundary in the
 * spec's time zone (midnight, the first day of the week, the 1st of the month, January 1st) and ends on the next
 * one, however many hours lie between them (a day with a daylight-saving change has 23 or 25).
 */
public enum CalendarPeriod {
    /** From midnight to midnight. */
    DAY,
    /** From midnight of the week's first day ({@link LimitSpec.CalendarWindow#firstDayOfWeek()}) for seven days. */
    WEEK,
    /** From midnight of the 1st to midnight of the next month's 1st. */
    MONTH,
    /** From midnight of January 1st to midnight of the next January 1st. */
    YEAR
}
