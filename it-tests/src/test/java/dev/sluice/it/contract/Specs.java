package dev.sluice.it.contract;

import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

/** One spec per algorithm, and a composite, with a given limit; windows long enough that the fake clock decides. */
public final class Specs {
    private Specs() {}

    public static List<LimitSpec> withLimit(long limit) {
        return List.of(
                LimitSpec.fixedWindow(limit, Duration.ofMinutes(1)),
                LimitSpec.slidingWindow(limit, Duration.ofMinutes(1), 6),
                LimitSpec.slidingLog(limit, Duration.ofMinutes(1)),
                LimitSpec.slidingCounter(limit, Duration.ofMinutes(1)),
                LimitSpec.tokenBucket(limit, 1, Duration.ofMinutes(1)),
                LimitSpec.gcra(1, Duration.ofMinutes(1), limit),
                LimitSpec.concurrency(limit, Duration.ofMinutes(1)),
                // A region zone, so every backend's deciding node resolves it from its own tz database.
                LimitSpec.calendarWindow(limit, CalendarPeriod.DAY, ZoneId.of("Europe/Paris")),
                // The log binds first; the bucket has room for twice the limit but refills slowly.
                LimitSpec.allOf(LimitSpec.slidingLog(limit, Duration.ofMinutes(1)),
                        LimitSpec.tokenBucket(limit * 2, 1, Duration.ofSeconds(30))));
    }

    /** Specs whose refusals carry a retry-after (all but concurrency). */
    public static List<LimitSpec> timedWithLimit(long limit) {
        return withLimit(limit).stream().filter(s -> !(s instanceof LimitSpec.Concurrency)).toList();
    }
}
