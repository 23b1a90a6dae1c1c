package dev.sluice.hazelcast;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The member's count of owned entries: when it is read again, and what it answers in between. */
final class MemberCapacityCountTest {
    private static final long MAX_KEYS = 1_000;

    private final AtomicLong entries = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final MemberCapacity.Count count = new MemberCapacity.Count();

    private long at(long wall) {
        return count.current(wall, MAX_KEYS, () -> {
            reads.incrementAndGet();
            return entries.get();
        });
    }

    @Test
    void farBelowTheBound_readsOncePerFarInterval_andCountsAdmissionsInBetween() {
        entries.set(10);
        assertEquals(10, at(0));
        for (long wall = MemberCapacity.COUNT_REFRESH_MILLIS; wall < MemberCapacity.FAR_REFRESH_MILLIS;
                wall += MemberCapacity.COUNT_REFRESH_MILLIS) {
            count.admitted();
            entries.incrementAndGet();
            assertEquals(entries.get(), at(wall), "every admission counts without a read");
        }
        assertEquals(1, reads.get(), "under half the bound, no read before the far interval");
        entries.addAndGet(300); // a migration brought entries that were never admitted here
        assertEquals(entries.get(), at(MemberCapacity.FAR_REFRESH_MILLIS));
        assertEquals(2, reads.get());
    }

    @Test
    void fromHalfTheBound_readsEveryRefreshInterval() {
        entries.set(MAX_KEYS / 2);
        at(0);
        at(MemberCapacity.COUNT_REFRESH_MILLIS - 1);
        assertEquals(1, reads.get());
        entries.set(MAX_KEYS / 4); // states expired: room came back
        assertEquals(MAX_KEYS / 4, at(MemberCapacity.COUNT_REFRESH_MILLIS));
        assertEquals(2, reads.get());
    }

    @Test
    void admissionsThatReachHalfTheBound_bringTheNextReadForward() {
        entries.set(10);
        at(0);
        for (long i = 0; i < MAX_KEYS / 2; i++) {
            count.admitted();
        }
        entries.addAndGet(MAX_KEYS / 2);
        assertEquals(10 + MAX_KEYS / 2, at(MemberCapacity.COUNT_REFRESH_MILLIS));
        assertEquals(2, reads.get(), "at half the bound the count is read at the refresh interval again");
    }
}
