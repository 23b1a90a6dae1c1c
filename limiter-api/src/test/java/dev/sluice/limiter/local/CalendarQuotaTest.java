package dev.sluice.limiter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Calendar quotas as a user sees them, on the manual clock: a monthly quota in a customer's zone through a month
 * end and a daylight-saving change, "10 a second and 10,000 a month" as one composite, a refund, and a live change
 * from a monthly to a daily quota.
 */
final class CalendarQuotaTest {
    private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

    private static Instant at(String local, ZoneId zone) {
        return LocalDateTime.parse(local).atZone(zone).toInstant();
    }

    @Test
    void monthlyQuota_refusesUntilTheFirst_thenStartsOver() {
        ManualClock clock = new ManualClock(at("2027-02-27T18:00", PARIS));
        try (RateLimiters limiters = LocalRateLimiters.create(clock)) {
            RateLimiter quota = limiters.limiter("reports", LimitSpec.calendarWindow(3, CalendarPeriod.MONTH, PARIS));
            for (int i = 0; i < 3; i++) {
                assertTrue(quota.tryAcquire(1).isAcquired());
            }
            Lease refused = quota.tryAcquire(1);
            assertFalse(refused.isAcquired());
            Duration toMarch = Duration.between(clock.instant(), at("2027-03-01T00:00", PARIS));
            assertEquals(Duration.ofHours(30), toMarch);
            assertEquals(toMarch, refused.retryAfter().orElseThrow());
            assertEquals(toMarch, refused.resetAfter());
            clock.set(at("2027-02-28T23:59:59.999", PARIS));
            assertEquals(Duration.ofMillis(1), quota.tryAcquire(1).retryAfter().orElseThrow());
            clock.set(at("2027-03-01T00:00", PARIS));
            Lease march = quota.tryAcquire(1);
            assertTrue(march.isAcquired());
            assertEquals(2, march.remaining());
            assertEquals(Duration.ofDays(31).minusHours(1), march.resetAfter(), "March in Paris loses an hour");
        }
    }

    @Test
    void perSecondAndPerMonth_asOneComposite_theMonthRefusesUntilTheFirst() {
        ManualClock clock = new ManualClock(at("2027-04-30T23:59:50", PARIS));
        LimitSpec spec = LimitSpec.allOf(LimitSpec.fixedWindow(10, Duration.ofSeconds(1)),
                LimitSpec.calendarWindow(25, CalendarPeriod.MONTH, PARIS));
        try (RateLimiters limiters = LocalRateLimiters.create(clock)) {
            PartitionedRateLimiter<String> perClient = limiters.partitioned("api", spec);
            int granted = 0;
            for (int second = 0; second < 5; second++) {
                for (int i = 0; i < 12; i++) {
                    granted += perClient.tryAcquire("alice", 1).isAcquired() ? 1 : 0;
                }
                clock.advance(Duration.ofSeconds(1));
            }
            assertEquals(25, granted, "10, 10, then the month's last 5");
            Lease refused = perClient.tryAcquire("alice", 1);
            assertFalse(refused.isAcquired());
            assertEquals(Duration.ofSeconds(5), refused.retryAfter().orElseThrow(), "until May 1st in Paris");
            assertTrue(perClient.tryAcquire("bob", 1).isAcquired(), "each client its own quota");
            clock.set(at("2027-05-01T00:00", PARIS));
            assertTrue(perClient.tryAcquire("alice", 10).isAcquired(), "a fresh month");
            assertFalse(perClient.tryAcquire("alice", 1).isAcquired(), "still at most 10 a second");
        }
    }

    @Test
    void refund_givesThePermitBack_inTheSameDay() throws Exception {
        ManualClock clock = new ManualClock(at("2027-10-31T01:00", PARIS));
        try (RateLimiters limiters = LocalRateLimiters.create(clock)) {
            RateLimiter daily = limiters.limiter("exports", LimitSpec.calendarWindow(2, CalendarPeriod.DAY, PARIS));
            Lease lease = daily.tryAcquire(2);
            assertTrue(lease.isAcquired());
            assertEquals(Duration.ofHours(24), lease.resetAfter(), "25-hour day, an hour gone");
            assertTrue(lease.refund().get(5, TimeUnit.SECONDS));
            assertEquals(1, daily.tryAcquire(1).remaining());
        }
    }

    @Test
    void liveChange_fromMonthlyToDaily_keepsWhatWasTaken() {
        ManualClock clock = new ManualClock(at("2027-06-15T09:00", PARIS));
        try (RateLimiters limiters = LocalRateLimiters.create(clock)) {
            RateLimiter monthly = limiters.limiter("uploads", LimitSpec.calendarWindow(10, CalendarPeriod.MONTH, PARIS));
            assertTrue(monthly.tryAcquire(8).isAcquired());
            RateLimiter daily = limiters.limiter("uploads", LimitSpec.calendarWindow(10, CalendarPeriod.DAY, PARIS));
            Lease left = daily.tryAcquire(0);
            assertEquals(2, left.remaining(), "the eight taken this month count today");
            assertEquals(Duration.ofHours(15), left.resetAfter(), "until midnight in Paris");
            assertFalse(daily.tryAcquire(3).isAcquired());
            clock.set(at("2027-06-16T00:00", PARIS));
            assertEquals(9, daily.tryAcquire(1).remaining(), "tomorrow the daily quota is whole");
        }
    }
}
