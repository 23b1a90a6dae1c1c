package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.Settlement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The owner of keys is killed (SIGKILL) while settlements of their grants, charges and refunds, are in flight. */
@ExtendWith(Reaper.class)
final class FaultSettlementsInFlightTest {
    private static final int LIMIT = 300;
    private static final int GRANTS = 80;
    private static final int THREADS = 8;
    private static final Duration WINDOW = Duration.ofDays(1);
    private static final List<LimitSpec> SPECS = List.of(LimitSpec.fixedWindow(LIMIT, WINDOW),
            LimitSpec.slidingLog(LIMIT, WINDOW), LimitSpec.tokenBucket(LIMIT, 1, WINDOW));

    private record Settling(int key, Lease lease) {}

    /**
     * {@link KeysOnOneOwner}: one key per algorithm. Each key grants 80 leases of 2 permits; 8 threads settle them
     * at 3, each a charge of one more (a refund's re-run is {@link FaultRefundsInFlightTest}'s), and a third of
     * the way through the keys' owner is killed. Then every key is asked, one permit at a time, until it refuses.
     *
     * <p>Expected: the settled costs add up to 240, so each key grants again exactly {@code 300 - 240 = 60}. A
     * charge applied twice would leave fewer, one lost more; a settlement that answered {@code FAILED} (none is
     * expected: each is retried until it lands) leaves its reservation, and is counted apart.
     */
    @Test
    void ownerKilledWhileSettlementsAreInFlight_eachAppliedOnce() throws Exception {
        try (KeysOnOneOwner keys = KeysOnOneOwner.start("settlements-in-flight", SPECS, WINDOW)) {
            ConcurrentLinkedQueue<Settling> toSettle = new ConcurrentLinkedQueue<>();
            for (int k = 0; k < SPECS.size(); k++) {
                for (int i = 0; i < GRANTS; i++) {
                    Lease lease = keys.limiter(i, k).tryAcquire(2);
                    assertTrue(lease.isAcquired(), "grant " + i + " of key " + k);
                    toSettle.add(new Settling(k, lease));
                }
            }
            int settlements = toSettle.size();
            AtomicLongArray failed = new AtomicLongArray(SPECS.size());
            keys.drainKillingTheOwner(toSettle, THREADS, s -> {
                Settlement settled = s.lease().settle(3).get(1, TimeUnit.MINUTES);
                if (!settled.isSettled()) {
                    failed.incrementAndGet(s.key());
                }
            }, "settlements");
            StringBuilder report = new StringBuilder();
            List<String> wrong = new ArrayList<>();
            long unsettled = 0;
            long expected = LIMIT - 3L * GRANTS;
            for (int k = 0; k < SPECS.size(); k++) {
                int regranted = keys.grantsUntilRefused(k, LIMIT);
                report.append(String.format("%n  %-16s settlements failed=%d, granted again=%d (expected %d)",
                        keys.describe(k), failed.get(k), regranted, expected));
                if (failed.get(k) == 0 && regranted != expected) {
                    wrong.add(keys.describe(k));
                }
                unsettled += failed.get(k);
            }
            System.out.println("[faults] settlements in flight, owner " + KeysOnOneOwner.VICTIM + " killed after "
                    + settlements / 3 + " of " + settlements + " settlements:" + report);
            assertTrue(unsettled == 0, unsettled + " settlements did not land" + report);
            assertTrue(wrong.isEmpty(), "a settlement was applied twice or lost on " + wrong + report);
        }
    }
}
