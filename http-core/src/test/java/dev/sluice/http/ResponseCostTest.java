package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.limiter.LimitSpec;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** What a response settles a reservation at ({@link ResponseCost}). */
final class ResponseCostTest {
    private final AtomicInteger unread = new AtomicInteger();
    private final AtomicInteger above = new AtomicInteger();

    private long cost(ResponseCost rule, int status, Map<String, String> headers) {
        return rule.cost(2, status, headers::get, unread::incrementAndGet, read -> above.incrementAndGet());
    }

    @Test
    void countStatuses_countsOnlyThose() {
        ResponseCost failedLogins = ResponseCost.countStatuses(401, 403);
        assertEquals(2, cost(failedLogins, 401, Map.of()));
        assertEquals(2, cost(failedLogins, 403, Map.of()));
        assertEquals(0, cost(failedLogins, 200, Map.of()));
        assertEquals(0, cost(failedLogins, 500, Map.of()));
    }

    @Test
    void costHeader_readsAWholeNumber_elseTheReservationStands() {
        ResponseCost header = ResponseCost.fromHeader("X-Sluice-Cost");
        assertEquals(30, cost(header, 200, Map.of("X-Sluice-Cost", " 30 ")));
        assertEquals(0, cost(header, 200, Map.of("X-Sluice-Cost", "0")));
        assertEquals(-1, cost(header, 200, Map.of()));
        assertEquals(-1, cost(header, 200, Map.of("X-Sluice-Cost", "1.5")));
        assertEquals(-1, cost(header, 200, Map.of("X-Sluice-Cost", "-3")));
        assertEquals(3, unread.get());
        assertEquals(5000, cost(header, 200, Map.of("X-Sluice-Cost", "5000")), "above a policy's limit: charged, owed");
        assertEquals(0, above.get());
        assertEquals(LimitSpec.MAX_LIMIT, cost(header, 200, Map.of("X-Sluice-Cost", "99999999999")),
                "above what one settlement charges: that much");
        assertEquals(1, above.get());
    }

    @Test
    void both_aStatusNotCountedSettlesToZero() {
        ResponseCost both = new ResponseCost(Set.of(200), "X-Sluice-Cost");
        assertEquals(0, cost(both, 500, Map.of("X-Sluice-Cost", "30")));
        assertEquals(30, cost(both, 200, Map.of("X-Sluice-Cost", "30")));
    }

    @Test
    void badRules_areRefused() {
        assertEquals("count-statuses must be HTTP statuses between 100 and 599, was 99",
                assertThrows(IllegalArgumentException.class, () -> ResponseCost.countStatuses(99)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ResponseCost.fromHeader("X Cost"));
        assertThrows(IllegalArgumentException.class, () -> new ResponseCost(Set.of(), null));
        assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.builder()
                .policy("jobs", dev.sluice.limiter.LimitSpec.concurrency(2, java.time.Duration.ofMinutes(1)))
                .responseCost("jobs", ResponseCost.countStatuses(401)).build());
        assertThrows(IllegalArgumentException.class, () -> HttpRateLimiterConfig.builder()
                .responseCost("nobody", ResponseCost.countStatuses(401)).build());
    }
}
