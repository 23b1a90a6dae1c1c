package dev.sluice.limiter.algorithm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.algorithm.StepHarness.Store;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Calendar windows on exact instants: months of 31, 30, 28 and 29 days, a leap day, both daylight-saving changes of
 * two zones (a day of 23 hours is one window, a day of 25 hours one window), weeks from Monday and from Sunday, the
 * year's end; refunds, live changes, merges and the wire form.
 */
final class CalendarWindowStepTest {
    private static final ZoneId UTC = ZoneOffset.UTC;
    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
    private static final Duration HOUR = Duration.ofHours(1);
    private static final Duration DAY = Duration.ofDays(1);

    private static long at(String localDateTime, ZoneId zone) {
        return LocalDateTime.parse(localDateTime).atZone(zone).toInstant().toEpochMilli();
    }

    /** Takes the whole limit at {@code first}; checks the refusal just before {@code end} and a fresh budget at it. */
    private static void assertWindow(LimitSpec.CalendarWindow spec, long first, long end, Duration length) {
        Store store = new Store(spec);
        Verdict granted = store.acquire(first, spec.limit());
        assertTrue(granted.granted());
        assertEquals(0, granted.remaining());
        assertEquals(end - first, granted.resetAfterMillis(), "resetAfter counts to the next boundary");
        Verdict refused = store.acquire(end - 1, 1);
        assertFalse(refused.granted(), "the window lasts until its boundary");
        assertEquals(1, refused.retryAfterMillis(), "retryAfter counts to the next boundary");
        assertEquals(1, refused.resetAfterMillis());
        Verdict fresh = store.acquire(end, 1);
        assertTrue(fresh.granted(), "a fresh budget at the boundary");
        assertEquals(spec.limit() - 1, fresh.remaining());
        assertEquals(length.toMillis(), fresh.resetAfterMillis(), "the next window is " + length + " long");
    }

    @Test
    void month_endsOnTheFirstOfTheNext_whateverItsLength() {
        LimitSpec.CalendarWindow spec = LimitSpec.calendarWindow(5, CalendarPeriod.MONTH, UTC);
        // January (31 days) into February (28), February into March (31), April (30) into May (31).
        assertWindow(spec, at("2027-01-15T10:00", UTC), at("2027-02-01T00:00", UTC), Duration.ofDays(28));
        assertWindow(spec, at("2027-02-01T00:00", UTC), at("2027-03-01T00:00", UTC), Duration.ofDays(31));
        assertWindow(spec, at("2027-04-30T23:59:59.999", UTC), at("2027-05-01T00:00", UTC), Duration.ofDays(31));
        assertWindow(spec, at("2027-06-01T00:00:00.001", UTC), at("2027-07-01T00:00", UTC), Duration.ofDays(31));
        // A leap year's February has 29 days.
        assertWindow(spec, at("2028-01-31T12:00", UTC), at("2028-02-01T00:00", UTC), Duration.ofDays(29));
    }

    @Test
    void leapDay_isADayOfItsOwn_andFebruaryEndsAfterIt() {
        assertWindow(LimitSpec.calendarWindow(3, CalendarPeriod.DAY, UTC), at("2028-02-28T20:00", UTC),
                at("2028-02-29T00:00", UTC), DAY);
        assertWindow(LimitSpec.calendarWindow(3, CalendarPeriod.DAY, UTC), at("2028-02-29T06:00", UTC),
                at("2028-03-01T00:00", UTC), DAY);
        assertWindow(LimitSpec.calendarWindow(3, CalendarPeriod.MONTH, PARIS), at("2028-02-29T23:00", PARIS),
                at("2028-03-01T00:00", PARIS), Duration.ofDays(31).minus(HOUR)); // March springs forward
    }

    @Test
    void daylightSavingDays_areOneWindowOf23Or25Hours() {
        LimitSpec.CalendarWindow paris = LimitSpec.calendarWindow(4, CalendarPeriod.DAY, PARIS);
        // Paris springs forward on 2027-03-28 (02:00 -> 03:00) and falls back on 2027-10-31 (03:00 -> 02:00).
        assertWindow(paris, at("2027-03-27T08:00", PARIS), at("2027-03-28T00:00", PARIS), HOUR.multipliedBy(23));
        assertWindow(paris, at("2027-10-30T08:00", PARIS), at("2027-10-31T00:00", PARIS), HOUR.multipliedBy(25));
        assertEquals(23 * 3_600_000L, new Store(paris).acquire(at("2027-03-28T00:00", PARIS), 1).resetAfterMillis());
        assertEquals(25 * 3_600_000L, new Store(paris).acquire(at("2027-10-31T00:00", PARIS), 1).resetAfterMillis());
        LimitSpec.CalendarWindow newYork = LimitSpec.calendarWindow(4, CalendarPeriod.DAY, NEW_YORK);
        // New York springs forward on 2027-03-14 and falls back on 2027-11-07, both at 02:00.
        assertWindow(newYork, at("2027-03-13T22:00", NEW_YORK), at("2027-03-14T00:00", NEW_YORK), HOUR.multipliedBy(23));
        assertWindow(newYork, at("2027-11-06T22:00", NEW_YORK), at("2027-11-07T00:00", NEW_YORK), HOUR.multipliedBy(25));
        // Within the changed hour: 01:30 of the fall-back day comes twice, both in the one window of that day.
        long firstHalfPast = at("2027-11-07T01:30", NEW_YORK);
        Store store = new Store(LimitSpec.calendarWindow(2, CalendarPeriod.DAY, NEW_YORK));
        assertTrue(store.acquire(firstHalfPast, 1).granted());
        assertTrue(store.acquire(firstHalfPast + 3_600_000L, 1).granted(), "01:30 again, one hour later");
        Verdict refused = store.acquire(firstHalfPast + 3_600_001L, 1);
        assertFalse(refused.granted());
        assertEquals(at("2027-11-08T00:00", NEW_YORK) - firstHalfPast - 3_600_001L, refused.retryAfterMillis());
    }

    @Test
    void week_startsOnItsFirstDay_mondayByDefault() {
        // 2027-01-06 is a Wednesday.
        long wednesday = at("2027-01-06T12:00", UTC);
        LimitSpec.CalendarWindow monday = LimitSpec.calendarWindow(2, CalendarPeriod.WEEK, UTC);
        assertEquals(DayOfWeek.MONDAY, monday.firstDayOfWeek());
        assertWindow(monday, wednesday, at("2027-01-11T00:00", UTC), Duration.ofDays(7));
        LimitSpec.CalendarWindow sunday = LimitSpec.calendarWindow(2, CalendarPeriod.WEEK, UTC, DayOfWeek.SUNDAY);
        assertWindow(sunday, wednesday, at("2027-01-10T00:00", UTC), Duration.ofDays(7));
        // The Paris week of the spring-forward Sunday (2027-03-28) is one hour short.
        LimitSpec.CalendarWindow parisWeek = LimitSpec.calendarWindow(2, CalendarPeriod.WEEK, PARIS);
        assertWindow(parisWeek, at("2027-03-20T12:00", PARIS), at("2027-03-22T00:00", PARIS),
                Duration.ofDays(7).minus(HOUR));
    }

    @Test
    void year_endsAtMidnightOfJanuaryFirstInItsZone() {
        LimitSpec.CalendarWindow year = LimitSpec.calendarWindow(10, CalendarPeriod.YEAR, PARIS);
        assertWindow(year, at("2027-12-31T23:00", PARIS), at("2028-01-01T00:00", PARIS), Duration.ofDays(366));
        assertWindow(year, at("2028-06-01T00:00", PARIS), at("2029-01-01T00:00", PARIS), Duration.ofDays(365));
        // At 23:30 UTC on December 31st the Paris year ended half an hour ago.
        Store store = new Store(year);
        assertTrue(store.acquire(at("2027-12-31T23:30", UTC), 10).granted(), "already 2028 in Paris");
        assertEquals(at("2029-01-01T00:00", PARIS) - at("2027-12-31T23:30", UTC), store.acquire(
                at("2027-12-31T23:30", UTC), 1).retryAfterMillis());
    }

    @Test
    void refund_givesBackInTheGrantsWindow_andNothingFromAnEarlierOne() {
        LimitSpec.CalendarWindow spec = LimitSpec.calendarWindow(3, CalendarPeriod.MONTH, PARIS);
        long grant = at("2027-01-31T23:59", PARIS);
        Store store = new Store(spec);
        assertTrue(store.acquire(grant, 3).granted());
        assertTrue(store.run(grant + 1, Op.REFUND, 2, grant).granted(), "the January grant is given back in January");
        assertEquals(2, store.acquire(grant + 2, 0).remaining());
        long february = at("2027-02-01T00:00", PARIS);
        assertTrue(store.acquire(february, 3).granted());
        assertFalse(store.run(february + 1, Op.REFUND, 1, grant).granted(),
                "a January grant no longer counts in February");
        assertEquals(0, store.acquire(february + 2, 0).remaining());
    }

    @Test
    void liveChange_betweenFixedAndCalendar_andBetweenPeriods_keepsTheCount() {
        long t = at("2027-05-10T10:00", PARIS);
        LimitSpec month = LimitSpec.calendarWindow(10, CalendarPeriod.MONTH, PARIS);
        LimitSpec day = LimitSpec.calendarWindow(10, CalendarPeriod.DAY, PARIS);
        LimitSpec fixed = LimitSpec.fixedWindow(10, HOUR);
        long[] state = Algorithms.acquire(month, null, t, 7).state();
        Verdict underDay = Algorithms.acquire(day, state, t + 1, 4);
        assertFalse(underDay.granted(), "the seven taken this month count against today's ten");
        assertEquals(3, underDay.remaining());
        assertEquals(at("2027-05-11T00:00", PARIS) - t - 1, underDay.resetAfterMillis(),
                "and last until the day's end");
        Verdict underFixed = Algorithms.acquire(fixed, state, t + 2, 3);
        assertTrue(underFixed.granted(), "a fixed window reads the calendar window's count");
        assertEquals(0, underFixed.remaining());
        Verdict backToMonth = Algorithms.acquire(month, underFixed.state(), t + 3, 1);
        assertFalse(backToMonth.granted(), "and a calendar window the fixed window's: ten were taken");
        assertEquals(at("2027-06-01T00:00", PARIS) - t - 3, backToMonth.resetAfterMillis());
        // A refusal moves the state to the new spec's window, so it is not forgotten when the old one ends.
        long[] moved = backToMonth.state();
        assertEquals(at("2027-06-01T00:00", PARIS), Algorithms.expiresAt(moved));
        assertFalse(Algorithms.acquire(month, moved, t + HOUR.toMillis() * 5, 1).granted());
    }

    @Test
    void anotherAlgorithmsState_isStillRefused() {
        long[] log = Algorithms.acquire(LimitSpec.slidingLog(5, HOUR), null, 1_000, 1).state();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Algorithms.acquire(LimitSpec.calendarWindow(5, CalendarPeriod.DAY, UTC), log, 2_000, 1));
        assertTrue(e.getMessage().contains("sliding-log"), e.getMessage());
    }

    @Test
    void merge_sameWindowKeepsTheHigherCount_otherwiseTheNewerWindow_fixedWindowStateToo() {
        LimitSpec.CalendarWindow spec = LimitSpec.calendarWindow(10, CalendarPeriod.DAY, UTC);
        long t = at("2027-08-01T10:00", UTC);
        long[] three = Algorithms.acquire(spec, null, t, 3).state();
        long[] five = Algorithms.acquire(spec, null, t + 5, 5).state();
        assertSame(five, StateMerge.merge(three, five));
        assertSame(five, StateMerge.merge(five, three));
        long[] tomorrow = Algorithms.acquire(spec, null, t + DAY.toMillis(), 1).state();
        assertSame(tomorrow, StateMerge.merge(five, tomorrow));
        long[] fixedDay = Algorithms.acquire(LimitSpec.fixedWindow(10, DAY), null, t, 7).state();
        long[] merged = StateMerge.merge(five, fixedDay);
        assertEquals(3, Algorithms.acquire(spec, merged, t + 10, 0).remaining(), "the seven of the same day");
    }

    @Test
    void wireForm_roundTrips_periodAndFirstDayInOneWord_zoneInAnother() {
        List<LimitSpec> specs = List.of(
                LimitSpec.calendarWindow(10_000, CalendarPeriod.MONTH, PARIS),
                LimitSpec.calendarWindow(7, CalendarPeriod.WEEK, NEW_YORK, DayOfWeek.SUNDAY),
                LimitSpec.calendarWindow(1, CalendarPeriod.DAY, ZoneOffset.ofHoursMinutes(-9, -30)),
                LimitSpec.calendarWindow(LimitSpec.MAX_LIMIT, CalendarPeriod.YEAR, ZoneId.of("UTC")),
                LimitSpec.allOf(LimitSpec.fixedWindow(10, Duration.ofSeconds(1)),
                        LimitSpec.calendarWindow(10_000, CalendarPeriod.MONTH, PARIS)));
        for (LimitSpec spec : specs) {
            long[] words = RequestCodec.encodeSpec(spec);
            assertEquals(spec, RequestCodec.decodeSpec(words, 0));
        }
        long[] words = RequestCodec.encodeSpec(specs.get(1));
        assertEquals(CalendarWindowStep.ID, words[0]);
        assertEquals(7, words[1]);
        assertEquals(CalendarPeriod.WEEK.ordinal() | DayOfWeek.SUNDAY.ordinal() << 8, words[2]);
        assertEquals(ZoneId.of("UTC+01:00").normalized(), ((LimitSpec.CalendarWindow) RequestCodec.decodeSpec(
                RequestCodec.encodeSpec(LimitSpec.calendarWindow(1, CalendarPeriod.DAY, ZoneId.of("UTC+01:00"))), 0))
                .zone(), "a prefixed offset travels as its offset");
        assertEquals(ZoneOffset.ofHours(1), LimitSpec.calendarWindow(1, CalendarPeriod.DAY, ZoneId.of("UTC+01:00"))
                .zone(), "and is kept as it travels");
    }

    @Test
    void wireForm_aZoneTheNodeDoesNotKnow_failsTheStepNamingTheCode() {
        long unknown = (1L << 62) | 12_345;
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> RequestCodec.decodeSpec(CalendarWindowStep.ID, 5, CalendarPeriod.DAY.ordinal(), unknown));
        assertTrue(e.getMessage().contains("0x" + Long.toHexString(unknown)), e.getMessage());
        assertTrue(e.getMessage().contains("tz database"), e.getMessage());
        IllegalArgumentException malformed = assertThrows(IllegalArgumentException.class,
                () -> RequestCodec.decodeSpec(CalendarWindowStep.ID, 5, 0, 100_000));
        assertTrue(malformed.getMessage().contains("zone"), malformed.getMessage());
        IllegalArgumentException period = assertThrows(IllegalArgumentException.class,
                () -> RequestCodec.decodeSpec(CalendarWindowStep.ID, 5, 9, 0));
        assertTrue(period.getMessage().contains("[day, week, month, year]"), period.getMessage());
    }

    @Test
    void windows_tileTheTimeLine_inEveryZoneOfTheDatabase() {
        Random rnd = new Random(7);
        List<String> ids = new ArrayList<>(ZoneId.getAvailableZoneIds());
        ids.sort(null);
        long from = at("1970-01-01T00:00", UTC);
        long span = at("2040-01-01T00:00", UTC) - from;
        for (String id : ids) {
            ZoneId zone = ZoneId.of(id);
            for (CalendarPeriod period : CalendarPeriod.values()) {
                for (int i = 0; i < 3; i++) {
                    long now = from + (long) (rnd.nextDouble() * span);
                    CalendarWindows.Window w = CalendarWindows.compute(period, DayOfWeek.MONDAY, zone, now);
                    assertTrue(w.holds(now), id + " " + period + " at " + now + ": " + w);
                    assertEquals(w.end(), CalendarWindows.compute(period, DayOfWeek.MONDAY, zone, w.end()).start(),
                            id + " " + period + ": the next window starts where this one ends");
                    assertEquals(w.start(), CalendarWindows.compute(period, DayOfWeek.MONDAY, zone, w.start() - 1)
                            .end(), id + " " + period + ": the previous window ends where this one starts");
                }
            }
        }
    }

    @Test
    void spec_validatesEveryValue_namingIt() {
        assertThrows(NullPointerException.class, () -> LimitSpec.calendarWindow(5, null, UTC));
        assertThrows(NullPointerException.class, () -> LimitSpec.calendarWindow(5, CalendarPeriod.DAY, null));
        IllegalArgumentException limit = assertThrows(IllegalArgumentException.class,
                () -> LimitSpec.calendarWindow(0, CalendarPeriod.DAY, UTC));
        assertTrue(limit.getMessage().contains("permitLimit"), limit.getMessage());
        IllegalArgumentException firstDay = assertThrows(IllegalArgumentException.class,
                () -> LimitSpec.calendarWindow(5, CalendarPeriod.MONTH, UTC, DayOfWeek.SUNDAY));
        assertTrue(firstDay.getMessage().contains("firstDayOfWeek"), firstDay.getMessage());
        assertTrue(firstDay.getMessage().contains("SUNDAY"), firstDay.getMessage());
    }

    @Test
    void description_namesItsParameters_withDefaults() {
        AlgorithmDescription d = AlgorithmDescription.named("calendar-window");
        assertEquals(List.of("permitLimit", "period", "zone", "firstDayOfWeek"),
                d.parameters().stream().map(AlgorithmDescription.Parameter::name).toList());
        assertEquals(3, d.wireWords());
        LimitSpec spec = d.spec(java.util.Map.of("permitLimit", 100L, "period", "week", "firstDayOfWeek", "sunday"));
        assertEquals(LimitSpec.calendarWindow(100, CalendarPeriod.WEEK, UTC, DayOfWeek.SUNDAY), spec);
        assertEquals(LimitSpec.calendarWindow(100, CalendarPeriod.MONTH, PARIS),
                d.spec(java.util.Map.of("permitLimit", 100L, "period", CalendarPeriod.MONTH, "zone", PARIS)));
        assertEquals(java.util.Map.of("permitLimit", 100L, "period", CalendarPeriod.MONTH, "zone", PARIS,
                "firstDayOfWeek", DayOfWeek.MONDAY), d.namedValues(LimitSpec.calendarWindow(100, CalendarPeriod.MONTH,
                PARIS)));
        IllegalArgumentException zone = assertThrows(IllegalArgumentException.class,
                () -> d.spec(java.util.Map.of("permitLimit", 1L, "period", "day", "zone", "Europe/Pari")));
        assertTrue(zone.getMessage().contains("Europe/Pari"), zone.getMessage());
        assertTrue(d.markdownRow().contains("one of [day, week, month, year]"), d.markdownRow());
        assertFalse(d.hasRateForm(), "its windows are not of a length one chooses");
        assertArrayEquals(new long[] {100, CalendarPeriod.MONTH.ordinal(), 0, 0},
                d.values(LimitSpec.calendarWindow(100, CalendarPeriod.MONTH, ZoneOffset.UTC)));
    }
}
