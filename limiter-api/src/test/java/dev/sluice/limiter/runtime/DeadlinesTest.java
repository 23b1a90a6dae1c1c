package dev.sluice.limiter.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Expiries grouped by slot still run each at its own deadline or later, once, and never once cancelled. */
final class DeadlinesTest {
    private static final Ticker TICKER = Ticker.system();

    /**
     * Deadlines spread over a few slots, each entry's expiry reading the ticker: a slot's task runs at the
     * slot's start, before most of its deadlines, so an entry run with its slot would be early.
     */
    @Test
    void everyExpiryRunsOnceAndNeverBeforeItsDeadline() throws Exception {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
        try {
            Deadlines deadlines = new Deadlines(scheduler, TICKER);
            int count = 2_000;
            long[] deadline = new long[count];
            long[] ranAt = new long[count];
            AtomicIntegerArray runs = new AtomicIntegerArray(count);
            CountDownLatch all = new CountDownLatch(count);
            long start = TICKER.read();
            for (int i = 0; i < count; i++) {
                int n = i;
                // From 2 ms to 12 ms ahead, a fresh nanosecond offset each: many per slot, few on a slot's start.
                deadline[n] = start + TimeUnit.MILLISECONDS.toNanos(2)
                        + ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(10));
                deadlines.add(deadline[n], () -> {
                    ranAt[n] = TICKER.read();
                    runs.incrementAndGet(n);
                    all.countDown();
                });
            }
            assertTrue(all.await(60, TimeUnit.SECONDS), "expiries left: " + all.getCount());
            drain(scheduler);
            List<String> wrong = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                if (runs.get(i) != 1 || ranAt[i] < deadline[i]) {
                    wrong.add("#" + i + " ran " + runs.get(i) + "x, " + (deadline[i] - ranAt[i]) + " ns early");
                }
            }
            assertEquals(List.of(), wrong);
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * Threads add and cancel at once on shared slots: an expiry whose cancel succeeded never runs, and every
     * other one runs once.
     */
    @Test
    void cancelledExpiriesNeverRun_underConcurrentAdds() throws Exception {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
        try {
            Deadlines deadlines = new Deadlines(scheduler, TICKER);
            int threads = 8;
            int each = 5_000;
            AtomicIntegerArray runs = new AtomicIntegerArray(threads * each);
            AtomicIntegerArray cancelled = new AtomicIntegerArray(threads * each);
            AtomicLong latest = new AtomicLong(TICKER.read());
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> adders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int base = t * each;
                Thread adder = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < each; i++) {
                        int n = base + i;
                        long deadline = TICKER.read() + TimeUnit.MICROSECONDS.toNanos(100 + n % 3_000);
                        latest.accumulateAndGet(deadline, Math::max);
                        Deadlines.Entry entry = deadlines.add(deadline, () -> runs.incrementAndGet(n));
                        if (n % 2 == 0 && entry.cancel()) {
                            cancelled.set(n, 1);
                        }
                    }
                });
                adder.start();
                adders.add(adder);
            }
            go.countDown();
            for (Thread adder : adders) {
                adder.join();
            }
            // The one scheduler thread runs tasks in deadline order: this one runs after every slot's task and
            // every task those scheduled for their entries not yet due, all of them due before it.
            CountDownLatch after = new CountDownLatch(1);
            scheduler.schedule(after::countDown, latest.get() + TimeUnit.MILLISECONDS.toNanos(1) - TICKER.read(),
                    TimeUnit.NANOSECONDS);
            assertTrue(after.await(60, TimeUnit.SECONDS), "the scheduler did not get past the last deadline");
            List<String> wrong = new ArrayList<>();
            int cancels = 0;
            for (int n = 0; n < threads * each; n++) {
                cancels += cancelled.get(n);
                if (runs.get(n) != 1 - cancelled.get(n)) {
                    wrong.add("#" + n + (cancelled.get(n) == 1 ? " cancelled," : "") + " ran " + runs.get(n) + "x");
                }
            }
            assertEquals(List.of(), wrong);
            assertTrue(cancels > 0, "no cancel came before its deadline: nothing was tested");
        } finally {
            scheduler.shutdownNow();
        }
    }

    /**
     * Decisions that finish leave nothing behind, even with a long timeout: a slot whose entries are all cancelled
     * drops them, rather than holding every decision's entry until its deadline.
     */
    @Test
    void cancelledEntries_areNotHeldUntilTheirDeadline() throws Exception {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
        try {
            Deadlines deadlines = new Deadlines(scheduler, TICKER);
            long far = TICKER.read() + TimeUnit.MINUTES.toNanos(5);
            Deadlines.Entry last = null;
            for (int i = 0; i < 10_000; i++) {
                // Ten slots, a thousand entries each, every entry cancelled as its decision would be.
                Deadlines.Entry entry = deadlines.add(far + (i % 10) * TimeUnit.MILLISECONDS.toNanos(1), () -> { });
                if (i < 9_999) {
                    assertTrue(entry.cancel());
                } else {
                    last = entry;
                }
            }
            assertTrue(deadlines.held() <= 1_000, "a slot with one live entry may keep its own; held " + deadlines.held());
            assertTrue(last.cancel());
            assertEquals(0, deadlines.held(), "entries held once every decision finished");
        } finally {
            scheduler.shutdownNow();
        }
    }

    /** Every task scheduled so far, and the tasks those schedule, have run. */
    private static void drain(ScheduledThreadPoolExecutor scheduler) throws InterruptedException {
        scheduler.shutdown(); // delayed tasks still run after shutdown, by default, and may schedule others
        assertTrue(scheduler.awaitTermination(60, TimeUnit.SECONDS), "the scheduler still has tasks");
    }
}
