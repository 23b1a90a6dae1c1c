package dev.sluice.it.faults;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The owner of keys is killed (SIGKILL) while refunds of their grants are in flight. */
@ExtendWith(Reaper.class)
final class FaultRefundsInFlightTest {
    private static final int LIMIT = 300;
    private static final int THREADS = 8;
    private static final Duration WINDOW = Duration.ofDays(1);
    private static final List<LimitSpec> SPECS = List.of(LimitSpec.fixedWindow(LIMIT, WINDOW),
            LimitSpec.slidingLog(LIMIT, WINDOW), LimitSpec.tokenBucket(LIMIT, 1, WINDOW));

    private record Refunding(int key, Lease lease) {}

    /**
     * {@link KeysOnOneOwner}: one key per algorithm. Each key's whole limit is granted; then 8 threads refund two
     * thirds of the grants, and a third of the way through the refunds the keys' owner is killed. Then every key
     * is asked until it refuses.
     *
     * <p>Expected: what stands never exceeds the limit. A refund applied twice would give back a permit its
     * caller holds, and the key would then grant one more than its limit: grants minus the refunds that
     * answered true must stay within the limit plus the refunds that answered false (those may or may not have
     * been applied once). And no refund is lost to the crash: each is retried until it lands, and answers true
     * (before refunds carried an id they were never retried, and those in flight at the kill were lost).
     */
    @Test
    void ownerKilledWhileRefundsAreInFlight_standingGrantsStayWithinTheLimit() throws Exception {
        try (KeysOnOneOwner keys = KeysOnOneOwner.start("refunds-in-flight", SPECS, WINDOW)) {
            ConcurrentLinkedQueue<Refunding> toRefund = new ConcurrentLinkedQueue<>();
            for (int k = 0; k < SPECS.size(); k++) {
                for (int i = 0; i < LIMIT; i++) {
                    Lease lease = keys.limiter(i, k).tryAcquire(1);
                    assertTrue(lease.isAcquired(), "grant " + i + " of key " + k);
                    if (i % 3 != 0) {
                        toRefund.add(new Refunding(k, lease));
                    }
                }
            }
            int refunds = toRefund.size();
            AtomicLongArray refundedTrue = new AtomicLongArray(SPECS.size());
            AtomicLongArray refundedFalse = new AtomicLongArray(SPECS.size());
            keys.drainKillingTheOwner(toRefund, THREADS, r -> {
                boolean gaveBack = r.lease().refund().get(1, TimeUnit.MINUTES);
                (gaveBack ? refundedTrue : refundedFalse).incrementAndGet(r.key());
            }, "refunds");
            StringBuilder report = new StringBuilder();
            List<String> over = new ArrayList<>();
            long lost = 0;
            for (int k = 0; k < SPECS.size(); k++) {
                int regranted = keys.grantsUntilRefused(k, LIMIT);
                long standing = LIMIT + regranted - refundedTrue.get(k);
                report.append(String.format("%n  %-16s refunds true=%d false=%d, granted again=%d, standing=%d"
                        + " (limit %d, at most %d)", keys.describe(k), refundedTrue.get(k), refundedFalse.get(k),
                        regranted, standing, LIMIT, LIMIT + refundedFalse.get(k)));
                if (standing > LIMIT + refundedFalse.get(k)) {
                    over.add(keys.describe(k));
                }
                lost += refundedFalse.get(k);
            }
            System.out.println("[faults] refunds in flight, owner " + KeysOnOneOwner.VICTIM + " killed after "
                    + refunds / 3 + " of " + refunds + " refunds:" + report);
            assertTrue(over.isEmpty(), "a refund was applied twice on " + over + report);
            assertTrue(lost == 0, lost + " refunds answered false" + report);
        }
    }
}
