package dev.sluice.limiter.runtime;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.QueueOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The local queue of one limiter and its pump.
 *
 * <p>The queue holds waiters that were refused; one "pump" at a time asks the store on behalf of the
 * waiter at the head ({@link QueueOrder#OLDEST_FIRST}: the oldest; {@link QueueOrder#NEWEST_FIRST}: the
 * newest), at the refusal's retry-after or after the poll interval, whichever is sooner, and at once
 * when a concurrency lease of this process is released. The queue waits in real time; the store's
 * clock alone decides whether the wait was long enough.
 *
 * <p>A grant goes to the waiter at the head when it arrives (the one asked for may have been cancelled
 * meanwhile or, newest first, overtaken by a newer one) if that waiter asked for as many permits; a
 * grant nobody can take goes back: its concurrency lease is released, its rate permits refunded (once,
 * through the refund's id). So is a grant whose answer arrives after its caller's deadline; an answer that
 * never arrives gives nothing back.
 *
 * <p>The queue's lock also guards whether its limiter is closed, so that a waiter is either queued
 * before closing (and then refused by it) or sees the limiter closed.
 */
final class WaitQueue {
    /** One caller of {@code acquireAsync} until its future completes. */
    static final class Waiter {
        final long permits;
        final long start;
        final CompletableFuture<Lease> future = new CompletableFuture<>();

        Waiter(long permits, long start) {
            this.permits = permits;
            this.start = start;
        }
    }

    private final DefaultRateLimiter limiter;
    private final Decider decider;
    private final LimiterOptions options;
    private final Stats stats;

    private final Object lock = new Object();
    /** Sized for none: a limiter per partition is made for each decision, and most never queue. */
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>(0);
    private long queuedPermits;
    private boolean pumping;
    private ScheduledFuture<?> pumpTask;
    private long pumpAtNanos;
    private volatile boolean closed;

    WaitQueue(DefaultRateLimiter limiter, Decider decider, LimiterOptions options, Stats stats) {
        this.limiter = limiter;
        this.decider = decider;
        this.options = options;
        this.stats = stats;
    }

    boolean isClosed() {
        return closed;
    }

    /** Whether a new acquisition of {@code permits} must queue behind the waiters before asking the store. */
    boolean queuesFirst(long permits) {
        synchronized (lock) {
            return permits > 0 && !queue.isEmpty() && options.queueOrder() == QueueOrder.OLDEST_FIRST;
        }
    }

    /** True while waiters are queued or the pump is asking for one. */
    boolean isBusy() {
        synchronized (lock) {
            return !queue.isEmpty() || pumping;
        }
    }

    /** Completes and counts a waiter; a lease nobody waits for any more goes back. */
    void deliver(Waiter waiter, Lease lease) {
        if (waiter.future.isDone()) {
            DefaultRateLimiter.giveBack(lease);
            return;
        }
        limiter.record(lease, waiter.start); // before completing, so a caller who sees the lease sees it counted
        if (!waiter.future.complete(lease)) {
            DefaultRateLimiter.giveBack(lease);
        }
    }

    /** Queues a refused waiter, or refuses it when the queue has no room. */
    void enqueue(Waiter waiter, Lease refusal) {
        // Hooked before the waiter is queued, so a cancellation that returns has already left the queue
        // (the hook runs in the cancelling thread), and one that came first keeps the waiter out.
        waiter.future.whenComplete((l, t) -> {
            if (waiter.future.isCancelled()) {
                removeWaiter(waiter);
            }
        });
        List<Waiter> evicted = new ArrayList<>();
        boolean accepted;
        synchronized (lock) {
            if (waiter.future.isDone()) {
                return;
            }
            accepted = !closed && waiter.permits <= options.queueLimit();
            if (accepted && queuedPermits + waiter.permits > options.queueLimit()) {
                if (options.queueOrder() == QueueOrder.NEWEST_FIRST) {
                    while (queuedPermits + waiter.permits > options.queueLimit()) {
                        Waiter oldest = queue.pollFirst();
                        queuedPermits -= oldest.permits;
                        stats.queueChanged(-oldest.permits);
                        evicted.add(oldest);
                    }
                } else {
                    accepted = false;
                }
            }
            if (accepted) {
                queue.addLast(waiter);
                queuedPermits += waiter.permits;
                stats.queueChanged(waiter.permits);
                schedulePumpLocked(refusal == null ? 0 : retryDelayMillis(refusal));
            }
        }
        for (Waiter w : evicted) {
            refuseFromQueue(w);
        }
        if (!accepted) {
            deliver(waiter, refusal != null ? refusal : limiter.closedRefusal());
        }
    }

    private void refuseFromQueue(Waiter w) {
        deliver(w, limiter.closedRefusal());
    }

    private void removeWaiter(Waiter waiter) {
        synchronized (lock) {
            if (queue.remove(waiter)) {
                queuedPermits -= waiter.permits;
                stats.queueChanged(-waiter.permits);
            }
        }
        limiter.maybeIdle();
    }

    /** Asks again at once for the head, if anyone waits: permits were given back in this process. */
    void pumpNowIfWaiting() {
        synchronized (lock) {
            if (!queue.isEmpty()) {
                schedulePumpLocked(0);
            }
        }
    }

    private void schedulePumpLocked(long delayMillis) {
        if (pumping || closed) {
            return;
        }
        long at = decider.ticker.read() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
        if (pumpTask != null && !pumpTask.isDone()) {
            if (pumpAtNanos - at <= 0) {
                return; // an earlier pump is already due
            }
            pumpTask.cancel(false);
        }
        pumpAtNanos = at;
        try {
            pumpTask = decider.scheduler.schedule(this::pump, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RuntimeException rejected) {
            pumpTask = null; // the runtime is closing; close() refuses the waiters
        }
    }

    /**
     * When the queue asks again after a refusal: at its retry-after, but never later than the poll
     * interval, since the store's clock, not ours, decides and others may release or expire permits.
     */
    private long retryDelayMillis(Lease refusal) {
        long poll = options.pollInterval().toMillis();
        return Math.max(0, refusal.retryAfter().map(d -> Math.min(d.toMillis(), poll)).orElse(poll));
    }

    private Waiter headLocked() {
        while (!queue.isEmpty()) {
            Waiter head = options.queueOrder() == QueueOrder.OLDEST_FIRST ? queue.peekFirst() : queue.peekLast();
            if (!head.future.isDone()) {
                return head;
            }
            queue.remove(head);
            queuedPermits -= head.permits;
            stats.queueChanged(-head.permits);
        }
        return null;
    }

    private void pump() {
        Waiter head;
        synchronized (lock) {
            pumpTask = null; // this run is the scheduled task; a reschedule from within must not see it as pending
            if (pumping || closed) {
                return;
            }
            head = headLocked();
            if (head == null) {
                return;
            }
            pumping = true;
        }
        Waiter asked = head;
        limiter.decideAsync(asked.permits).whenComplete((lease, failure) -> {
            long nextDelay = -1;
            boolean done = failure != null || lease.isAcquired() || lease.isDegraded();
            Waiter served = asked;
            synchronized (lock) {
                pumping = false;
                if (done && failure == null && lease.isAcquired()) {
                    // The grant goes to whoever is at the head now, if it asked for as many permits: the
                    // asked waiter may have been cancelled while the grant was in flight, or (NEWEST_FIRST)
                    // a newer waiter may have arrived, who is served first. The permits are taken either way.
                    Waiter now = headLocked();
                    if (now != null && now != asked && now.permits == asked.permits) {
                        served = now;
                    }
                }
                if (done && queue.remove(served)) {
                    queuedPermits -= served.permits;
                    stats.queueChanged(-served.permits);
                }
                if (!done) {
                    nextDelay = retryDelayMillis(lease);
                }
            }
            if (failure != null) {
                served.future.completeExceptionally(failure);
            } else if (done) {
                deliver(served, lease);
            }
            synchronized (lock) {
                if (headLocked() != null) {
                    schedulePumpLocked(done ? 0 : nextDelay);
                }
            }
            limiter.maybeIdle();
        });
    }

    /**
     * Marks the limiter closed and refuses every waiter; false if it already was closed. No pump runs
     * afterwards.
     */
    boolean close() {
        List<Waiter> refused;
        synchronized (lock) {
            if (closed) {
                return false;
            }
            closed = true;
            if (pumpTask != null) {
                pumpTask.cancel(false);
            }
            refused = new ArrayList<>(queue);
            queue.clear();
            if (queuedPermits != 0) {
                stats.queueChanged(-queuedPermits);
            }
            queuedPermits = 0;
        }
        for (Waiter w : refused) {
            refuseFromQueue(w);
        }
        return true;
    }
}
