package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.LimitSpec;
import java.io.IOException;
import java.io.StringReader;
import java.time.DayOfWeek;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** A calendar quota in properties: period, zone and first day of the week, each error naming its property. */
final class CalendarSettingsTest {
    private static final String ROUTE = """
            sluice.routes.api.pattern=/api/*
            sluice.routes.api.policy=monthly
            sluice.policies.monthly.algorithm=calendar-window
            sluice.policies.monthly.permit-limit=10000
            """;

    private static LimitSpec spec(String settings) {
        return HttpRateLimiterConfig.fromProperties(props(ROUTE + settings)).policies().get("monthly").spec();
    }

    private static String error(String settings) {
        return assertThrows(IllegalArgumentException.class,
                () -> HttpRateLimiterConfig.fromProperties(props(ROUTE + settings))).getMessage();
    }

    private static Properties props(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return p;
    }

    @Test
    void monthlyInAZone_isTheSpecTheJavaApiBuilds() {
        assertEquals(LimitSpec.calendarWindow(10_000, CalendarPeriod.MONTH, ZoneId.of("Europe/Paris")),
                spec("sluice.policies.monthly.period=month\nsluice.policies.monthly.zone=Europe/Paris\n"));
    }

    @Test
    void zoneAndFirstDay_takeTheirDefaults_andAnyCase() {
        assertEquals(LimitSpec.calendarWindow(10_000, CalendarPeriod.DAY, ZoneOffset.UTC),
                spec("sluice.policies.monthly.period=DAY\n"));
        assertEquals(LimitSpec.calendarWindow(10_000, CalendarPeriod.WEEK, ZoneOffset.ofHours(-5), DayOfWeek.SUNDAY),
                spec("sluice.policies.monthly.period=week\nsluice.policies.monthly.zone=-05:00\n"
                        + "sluice.policies.monthly.first-day-of-week=Sunday\n"));
    }

    @Test
    void badValues_nameThePropertyTheValueAndWhatIsExpected() {
        String period = error("sluice.policies.monthly.period=fortnight\n");
        assertTrue(period.contains("sluice.policies.monthly.period='fortnight'"), period);
        assertTrue(period.contains("[day, week, month, year]"), period);
        String zone = error("sluice.policies.monthly.period=month\nsluice.policies.monthly.zone=Europe/Pari\n");
        assertTrue(zone.contains("sluice.policies.monthly.zone"), zone);
        assertTrue(zone.contains("Europe/Pari"), zone);
        assertTrue(zone.contains("region id of the tz database"), zone);
        String day = error("sluice.policies.monthly.period=week\nsluice.policies.monthly.first-day-of-week=funday\n");
        assertTrue(day.contains("sluice.policies.monthly.first-day-of-week='funday'"), day);
        assertTrue(day.contains("monday"), day);
        String missing = error("sluice.policies.monthly.zone=UTC\n");
        assertTrue(missing.contains("sluice.policies.monthly.period"), missing);
        assertTrue(missing.contains("[day, week, month, year]"), missing);
    }

    @Test
    void firstDayOfAMonth_isRefused_namingTheProperty() {
        String e = error("sluice.policies.monthly.period=month\nsluice.policies.monthly.first-day-of-week=sunday\n");
        assertTrue(e.contains("sluice.policies.monthly.first-day-of-week"), e);
        assertTrue(e.contains("applies to a week only"), e);
    }

    @Test
    void aWindow_isNoSettingOfACalendarWindow() {
        String e = error("sluice.policies.monthly.period=month\nsluice.policies.monthly.window=PT1H\n");
        assertTrue(e.contains("sluice.policies.monthly.window"), e);
        assertTrue(e.contains("first-day-of-week") && e.contains("period") && e.contains("zone"), e);
    }

    @Test
    void policyHeader_givesTheMonthItsMeanLength_andResetCountsToTheBoundary() {
        RateLimitPolicy policy = HttpRateLimiterConfig.fromProperties(props(ROUTE
                + "sluice.policies.monthly.period=month\n")).policies().get("monthly");
        assertEquals("\"monthly\";q=10000;w=2629746", Responses.policyField(policy));
    }
}
