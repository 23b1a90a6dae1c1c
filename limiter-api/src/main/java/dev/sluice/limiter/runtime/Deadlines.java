package dev.sluice.limiter.runtime;

import dev.sluice.limiter.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs expiries at their deadlines on the runtime's scheduler, with one scheduled task per slot of deadlines
 * rather than one per decision. Almost every decision finishes long before its deadline, and scheduling and
 * cancelling a task for each (the scheduler's lock, and a wake-up of its thread whenever its queue was empty)
 * cost a large share of a decision's own path. A finished decision cancels its entry, which drops the
 * expiry and what it holds; and once every entry of a slot is cancelled, the slot drops its entries, so what
 * is kept is bounded by the decisions in flight, not by the rate times the timeout.
 *
 * <p>An expiry never runs before its deadline on the ticker: a slot's task runs at the slot's start, runs
 * what is due, and schedules what is not (a decision still in flight near its deadline) at the earliest of
 * those deadlines.
 */
final class Deadlines {
    private static final long SLOT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final VarHandle HEAD;
    private static final VarHandle EXPIRY;
    private static final VarHandle LIVE;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(Slot.class, "head", Entry.class);
            EXPIRY = lookup.findVarHandle(Entry.class, "expiry", Runnable.class);
            LIVE = lookup.findVarHandle(Slot.class, "live", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The head of a slot whose task has taken its entries: nothing more joins it. */
    private static final Entry TAKEN = new Entry(0, null);

    private final ScheduledExecutorService scheduler;
    private final Ticker ticker;
    private final ConcurrentHashMap<Long, Slot> slots = new ConcurrentHashMap<>();
    /** The slot most recently opened: with one timeout, nearly every new deadline falls in it. */
    private volatile Slot latest = new Slot(Long.MIN_VALUE);

    Deadlines(ScheduledExecutorService scheduler, Ticker ticker) {
        this.scheduler = scheduler;
        this.ticker = ticker;
    }

    /** One expiry waiting for its deadline. */
    static final class Entry {
        final long deadline;
        volatile Runnable expiry;
        /** The next entry of the same slot; written before the entry is published, read by the slot's task. */
        Entry next;
        /** The slot the entry joined; written before the entry is published. */
        Slot slot;

        Entry(long deadline, Runnable expiry) {
            this.deadline = deadline;
            this.expiry = expiry;
        }

        /** Drops the expiry; true if it will never run, false if it already has (or is running). */
        boolean cancel() {
            if (take() == null) {
                return false;
            }
            slot.release();
            return true;
        }

        Runnable take() {
            return (Runnable) EXPIRY.getAndSet(this, null);
        }
    }

    /** The deadlines that fall in one slot of time, and so share one scheduled task. */
    private static final class Slot {
        final long index;
        volatile Entry head;
        /** Entries pushed and not cancelled, counted up before each push. */
        volatile int live;

        Slot(long index) {
            this.index = index;
        }

        /** False once the slot's task has taken its entries. */
        boolean push(Entry entry) {
            entry.slot = this;
            LIVE.getAndAdd(this, 1);
            for (;;) {
                Entry h = head;
                if (h == TAKEN) {
                    return false; // the count no longer matters: the task has run
                }
                entry.next = h;
                if (HEAD.compareAndSet(this, h, entry)) {
                    return true;
                }
            }
        }

        /**
         * One entry cancelled. When none is left, the chain is dropped, unless an entry was pushed since: the
         * head is read before the count, and an entry pushed before that read counted itself up before it.
         */
        void release() {
            Entry h = head;
            if ((int) LIVE.getAndAdd(this, -1) == 1 && h != TAKEN && h != null) {
                HEAD.compareAndSet(this, h, null);
            }
        }

        /** Entries this slot still holds, cancelled or not; for tests. */
        int held() {
            int n = 0;
            for (Entry e = head; e != null && e != TAKEN; e = e.next) {
                n++;
            }
            return n;
        }

        Entry takeAll() {
            return (Entry) HEAD.getAndSet(this, TAKEN);
        }
    }

    /**
     * Runs {@code expiry} once {@code deadline} (on the ticker) has passed, unless the returned entry is
     * cancelled first.
     *
     * @throws java.util.concurrent.RejectedExecutionException if the scheduler no longer takes tasks
     */
    Entry add(long deadline, Runnable expiry) {
        Entry entry = new Entry(deadline, expiry);
        long index = Math.floorDiv(deadline, SLOT_NANOS);
        Slot slot = latest;
        if (slot.index == index && slot.push(entry)) {
            return entry;
        }
        for (;;) {
            slot = slots.get(index);
            if (slot == null) {
                Slot opened = new Slot(index);
                slot = slots.putIfAbsent(index, opened);
                if (slot == null) {
                    slot = opened;
                    open(opened);
                }
            }
            if (slot.push(entry)) {
                return entry;
            }
            slots.remove(index, slot); // its task took it already: the next one opens anew
        }
    }

    /** Entries held in slots whose tasks have not run yet; for tests. */
    int held() {
        return slots.values().stream().mapToInt(Slot::held).sum();
    }

    private void open(Slot slot) {
        try {
            scheduler.schedule(() -> run(slot), slot.index * SLOT_NANOS - ticker.read(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException rejected) {
            slots.remove(slot.index, slot);
            throw rejected;
        }
        latest = slot;
    }

    private void run(Slot slot) {
        slots.remove(slot.index, slot);
        runDue(slot.takeAll());
    }

    /** Runs the entries of {@code first}'s chain that are due, and schedules the rest at the earliest of them. */
    private void runDue(Entry first) {
        long now = ticker.read();
        Entry pending = null;
        long earliest = Long.MAX_VALUE;
        Throwable failure = null;
        for (Entry e = first, next; e != null; e = next) {
            next = e.next;
            if (e.expiry == null) {
                continue;
            }
            if (e.deadline - now <= 0) {
                Runnable expiry = e.take();
                try {
                    if (expiry != null) {
                        expiry.run();
                    }
                } catch (RuntimeException | Error t) {
                    // One expiry's failure must not strand the others; the first goes to the task's future.
                    if (failure == null) {
                        failure = t;
                    } else {
                        failure.addSuppressed(t);
                    }
                }
            } else {
                e.next = pending;
                pending = e;
                earliest = Math.min(earliest, e.deadline);
            }
        }
        if (pending != null) {
            Entry rest = pending;
            scheduler.schedule(() -> runDue(rest), earliest - now, TimeUnit.NANOSECONDS);
        }
        if (failure instanceof RuntimeException e) {
            throw e;
        } else if (failure != null) {
            throw (Error) failure;
        }
    }
}
