package dev.sluice.limiter.runtime;

import dev.sluice.limiter.algorithm.Algorithms;
import dev.sluice.limiter.algorithm.Verdict;

import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.spi.StepRequest;

import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.QueueOrder;
import dev.sluice.limiter.RateLimiter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.BooleanSupplier;

/**
 * The runtime of one key: decisions with failure modes, the local queue and concurrency leases.
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
 */
final class DefaultRateLimiter implements RateLimiter {
    private final DefaultRateLimiters owner;
    private final String name;
    private final String key;
    private final LimitSpec spec;
    private final LimiterOptions options;
    private final Stats stats;
    private final Decider decider;
    private final boolean concurrency;
    private final Runnable onIdle;
    /** For a partition: whether its partitioned limiter was closed (it may not be tracking this one). */
    private final BooleanSupplier ownerClosed;

    private final Object lock = new Object();
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    private long queuedPermits;
    private boolean pumping;
    private ScheduledFuture<?> pumpTask;
    private long pumpAtNanos;
    private volatile boolean closed;
    private final Set<ConcurrencyLease> liveLeases = ConcurrentHashMap.newKeySet();

    DefaultRateLimiter(DefaultRateLimiters owner, String name, String key, LimitSpec spec, LimiterOptions options,
            Stats stats, Runnable onIdle) {
        this(owner, name, key, spec, options, stats, onIdle, () -> false);
    }

    DefaultRateLimiter(DefaultRateLimiters owner, String name, String key, LimitSpec spec, LimiterOptions options,
            Stats stats, Runnable onIdle, BooleanSupplier ownerClosed) {
        this.owner = owner;
        this.name = name;
        this.key = key;
        this.spec = spec;
        this.options = options;
        this.stats = stats;
        this.decider = owner.decider;
        this.concurrency = spec instanceof LimitSpec.Concurrency;
        this.onIdle = onIdle;
        this.ownerClosed = ownerClosed;
    }

    @Override public String name() { return name; }
    @Override public String key() { return key; }
    @Override public LimitSpec spec() { return spec; }
    @Override public LimiterOptions options() { return options; }
    @Override public LimiterStatistics statistics() { return stats.snapshot(); }

    private StepRequest request(Op op, long permits, long leaseId) {
        return new StepRequest(key, spec, op, permits, leaseId, options.durability());
    }

    /**
     * An acquisition; a concurrency one carries a random nonce, never 0 (none), that keeps split sides'
     * tokens apart and lets a retry of it find the lease it was granted (see {@code ConcurrencyStep}).
     */
    private StepRequest acquireRequest(long permits) {
        long nonce = 0;
        while (concurrency && nonce == 0) {
            nonce = ThreadLocalRandom.current().nextLong();
        }
        return request(Op.ACQUIRE, permits, nonce);
    }

    private void checkPermits(long permits) {
        if (permits < 0 || permits > spec.limit()) {
            throw new IllegalArgumentException("permits must be between 0 and " + spec.limit() + " (the limit of '"
                    + name + "'), was " + permits);
        }
    }

    // ---- one decision ----

    @Override
    public Lease tryAcquire(long permits) {
        checkPermits(permits);
        if (closed) {
            throw new IllegalStateException("limiter '" + name + "' is closed");
        }
        long start = decider.ticker.read();
        Verdict verdict;
        try {
            verdict = decider.decide(acquireRequest(permits), options);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw (CancellationException) new CancellationException("interrupted while deciding for '" + name + "'")
                    .initCause(e);
        } catch (Throwable failure) {
            return record(unavailable(failure, start), start);
        }
        return record(toLease(verdict, permits), start);
    }

    /** Counts a lease handed to a caller. */
    private Lease record(Lease lease, long start) {
        DecisionResult result = lease.isDegraded() ? DecisionResult.DEGRADED
                : lease.isAcquired() ? DecisionResult.GRANTED : DecisionResult.REFUSED;
        stats.record(result, lease.isDegraded() ? -1 : lease.remaining(), start);
        return lease;
    }

    private Lease toLease(Verdict v, long permits) {
        if (concurrency && v.granted() && permits > 0) {
            ConcurrencyLease lease = new ConcurrencyLease(v);
            liveLeases.add(lease);
            lease.startRenewal();
            return lease;
        }
        return v.granted() && permits > 0 ? new RateGrant(v, permits) : Leases.of(v);
    }

    /** Applies the failure mode; rethrows usage errors, which no failure mode hides. */
    private Lease unavailable(Throwable failure, long start) {
        if (failure instanceof Error error) {
            throw error;
        }
        if (Decider.isUsageError(failure)) {
            throw withKey((RuntimeException) failure);
        }
        if (failure instanceof CapacityExceededException) {
            // A deny whatever the failure mode: a key beyond the bound never gets state, so ALLOW would leave it
            // unlimited, and THROW would turn a flood into errors for the application to handle.
            stats.capacityRefused();
            return Lease.degraded(false, spec.limit());
        }
        FailureMode mode = options.failureMode();
        if (mode == FailureMode.THROW) {
            stats.record(DecisionResult.DEGRADED, -1, start);
            String why = failure instanceof TimeoutException ? "no verdict within " + options.decisionTimeout()
                    : "the store failed: " + failure;
            throw new DecisionUnavailableException(name, why, failure);
        }
        boolean allow = mode == FailureMode.ALLOW;
        return Lease.degraded(allow, spec.limit());
    }

    private RuntimeException withKey(RuntimeException e) {
        String message = "limiter '" + name + "' (key '" + key + "'): " + e.getMessage();
        RuntimeException wrapped = e instanceof IllegalArgumentException
                ? new IllegalArgumentException(message, e) : new IllegalStateException(message, e);
        return wrapped;
    }

    /**
     * The async form of one decision, with the failure mode applied: never completes with a usage error
     * hidden. Cancelling the returned future cancels the decision, so a request the store still holds unsent
     * is dropped; a grant that arrives once the returned future is done goes back (a concurrency lease is
     * released at once).
     */
    private CompletableFuture<Lease> decideAsync(long permits) {
        long start = decider.ticker.read();
        CompletableFuture<Lease> out = new CompletableFuture<>();
        CompletableFuture<Verdict> decision = decider.decideAsync(acquireRequest(permits), options,
                late -> giveBack(late, permits));
        decision.whenComplete((v, failure) -> {
            if (failure == null) {
                Lease lease = toLease(v, permits);
                if (!out.complete(lease)) {
                    giveBack(lease);
                }
                return;
            }
            if (out.isDone()) {
                return; // cancelled by the caller: no failure mode applies, nothing is counted
            }
            try {
                out.complete(unavailable(failure, start));
            } catch (RuntimeException e) {
                out.completeExceptionally(e);
            }
        });
        out.whenComplete((lease, failure) -> {
            if (out.isCancelled()) {
                decision.cancel(false);
            }
        });
        return out;
    }

    // ---- queueing ----

    private static final class Waiter {
        final long permits;
        final long start;
        final CompletableFuture<Lease> future = new CompletableFuture<>();

        Waiter(long permits, long start) {
            this.permits = permits;
            this.start = start;
        }
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(long permits) {
        checkPermits(permits);
        Waiter waiter = new Waiter(permits, decider.ticker.read());
        if (closed) {
            waiter.future.complete(closedRefusal());
            return waiter.future;
        }
        boolean queueFirst;
        synchronized (lock) {
            queueFirst = permits > 0 && !queue.isEmpty() && options.queueOrder() == QueueOrder.OLDEST_FIRST;
        }
        if (queueFirst) {
            enqueue(waiter, null);
            return waiter.future;
        }
        CompletableFuture<Lease> decision = decideAsync(permits);
        decision.whenComplete((lease, failure) -> {
            if (failure != null) {
                waiter.future.completeExceptionally(failure);
            } else if (lease.isAcquired() || lease.isDegraded() || permits == 0 || options.queueLimit() == 0) {
                deliver(waiter, lease);
            } else {
                enqueue(waiter, lease);
            }
        });
        // A caller who gives up before the first decision is back (cancels, or completes the future
        // itself) cancels that decision: if it still waits in the store unsent, it is never charged.
        waiter.future.whenComplete((lease, failure) -> decision.cancel(false));
        return waiter.future;
    }

    private Lease closedRefusal() {
        return Lease.refused(0, spec.limit(), Optional.empty(), Duration.ZERO);
    }

    /** Completes and counts a waiter; a lease nobody waits for any more goes back ({@link #giveBack}). */
    private void deliver(Waiter waiter, Lease lease) {
        if (waiter.future.isDone()) {
            giveBack(lease);
            return;
        }
        record(lease, waiter.start); // before completing, so a caller who sees the lease sees it counted
        if (!waiter.future.complete(lease)) {
            giveBack(lease);
        }
    }

    /** A lease nobody will hold: a rate grant is refunded, a concurrency lease released; others are values. */
    private static void giveBack(Lease lease) {
        if (lease instanceof RateGrant) {
            lease.refund();
        } else {
            lease.close();
        }
    }

    /** A verdict that arrived after its caller gave up: what it granted goes back. */
    private void giveBack(Verdict late, long permits) {
        if (!late.granted() || permits == 0) {
            return;
        }
        if (concurrency) {
            try {
                decider.decideAsync(request(Op.RELEASE, 0, late.token()), options);
            } catch (RuntimeException closing) {
                // the runtime is closing: the lease expires in the store
            }
        } else {
            new RateGrant(late, permits).refund();
        }
    }

    /** Queues a refused waiter, or refuses it when the queue has no room. */
    private void enqueue(Waiter waiter, Lease refusal) {
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
            deliver(waiter, refusal != null ? refusal : closedRefusal());
        }
    }

    private void refuseFromQueue(Waiter w) {
        deliver(w, closedRefusal());
    }

    private void removeWaiter(Waiter waiter) {
        synchronized (lock) {
            if (queue.remove(waiter)) {
                queuedPermits -= waiter.permits;
                stats.queueChanged(-waiter.permits);
            }
        }
        maybeIdle();
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
        decideAsync(asked.permits).whenComplete((lease, failure) -> {
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
            maybeIdle();
        });
    }

    /** True while this limiter holds waiters or leases, so a partitioned limiter must keep it. */
    boolean isBusy() {
        synchronized (lock) {
            return !queue.isEmpty() || pumping || !liveLeases.isEmpty();
        }
    }

    private void maybeIdle() {
        if (onIdle != null && !isBusy()) {
            onIdle.run();
        }
    }

    @Override
    public Lease acquire(long permits, Duration maxWait) throws InterruptedException {
        checkPermits(permits);
        if (maxWait == null || maxWait.isZero() || maxWait.isNegative()) {
            return tryAcquire(permits);
        }
        long waitNanos = Waits.toNanosSaturated(maxWait); // before anything is queued: it cannot fail afterwards
        long start = decider.ticker.read();
        return Waits.await(acquireAsync(permits), waitNanos, () -> record(closedRefusal(), start), name);
    }

    @Override
    public void close() {
        List<Waiter> refused;
        synchronized (lock) {
            if (closed) {
                return;
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
        for (ConcurrencyLease lease : liveLeases) {
            lease.stopRenewal();
        }
        liveLeases.clear();
    }

    // ---- concurrency leases ----

    /**
     * A granted concurrency lease: renewed in the background until closed; closing releases it once.
     * A renewal the store refuses (the lease expired there) stops renewal; the lease is not recreated.
     */
    final class ConcurrencyLease implements Lease {
        private final Verdict verdict;
        private final AtomicBoolean released = new AtomicBoolean();
        private volatile ScheduledFuture<?> renewal;

        ConcurrencyLease(Verdict verdict) {
            this.verdict = verdict;
        }

        void startRenewal() {
            long lease = ((LimitSpec.Concurrency) spec).leaseDurationMillis();
            long every = options.renewInterval() != null ? Math.min(options.renewInterval().toMillis(), lease - 1)
                    : Math.max(1, lease / 3);
            try {
                renewal = decider.scheduler.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
            } catch (RuntimeException rejected) {
                renewal = null; // closing: the lease simply expires in the store
            }
        }

        private void renew() {
            if (released.get()) {
                return;
            }
            if (closed || ownerClosed.getAsBoolean()) {
                // Closing stops renewal (the lease then expires in the store), also for a partition its
                // partitioned limiter no longer tracked when it closed (past its bound of busy partitions).
                stopRenewal();
                return;
            }
            decider.decideAsync(request(Op.RENEW, 0, verdict.token()), options).whenComplete((v, failure) -> {
                if (failure == null && !v.granted()) {
                    stopRenewal(); // expired in the store: never recreated
                }
            });
        }

        void stopRenewal() {
            ScheduledFuture<?> r = renewal;
            if (r != null) {
                r.cancel(false);
            }
        }

        @Override public boolean isAcquired() { return true; }
        @Override public long remaining() { return verdict.remaining(); }
        @Override public long limit() { return verdict.limit(); }
        @Override public Optional<Duration> retryAfter() { return Optional.empty(); }
        @Override public Duration resetAfter() { return Duration.ofMillis(verdict.resetAfterMillis()); }
        @Override public boolean isDegraded() { return false; }
        @Override public OptionalLong fencingToken() { return OptionalLong.of(verdict.token()); }

        /**
         * Releases the lease; completes with true once the store gave its permits back, false when it did not
         * (already released here, expired in the store, the runtime closed, the store failed).
         */
        @Override
        public CompletableFuture<Boolean> refund() {
            return release();
        }

        @Override
        public void close() {
            release();
        }

        private CompletableFuture<Boolean> release() {
            if (!released.compareAndSet(false, true)) {
                return CompletableFuture.completedFuture(false);
            }
            stopRenewal();
            liveLeases.remove(this);
            CompletableFuture<Verdict> release;
            try {
                release = decider.decideAsync(request(Op.RELEASE, 0, verdict.token()), options);
            } catch (RuntimeException e) {
                maybeIdle();
                return CompletableFuture.completedFuture(false); // closing: nothing sent, the lease expires in the store
            }
            return release.handle((v, failure) -> {
                synchronized (lock) {
                    if (!queue.isEmpty()) {
                        schedulePumpLocked(0);
                    }
                }
                maybeIdle();
                return failure == null && v.granted(); // a lease the store no longer held gave nothing back
            });
        }

        @Override
        public String toString() {
            return "Lease[granted, token=" + verdict.token() + ", remaining=" + verdict.remaining() + ", limit="
                    + verdict.limit() + (released.get() ? ", released" : "") + "]";
        }
    }

    /** A granted rate lease: a value, plus the refund of its permits to the store, once. */
    final class RateGrant implements Lease {
        // A field updater, not an AtomicBoolean: one object less on every grant.
        private static final AtomicIntegerFieldUpdater<RateGrant> REFUNDED =
                AtomicIntegerFieldUpdater.newUpdater(RateGrant.class, "refunded");
        private final Verdict verdict;
        private final long permits;
        private volatile int refunded;

        RateGrant(Verdict verdict, long permits) {
            this.verdict = verdict;
            this.permits = permits;
        }

        @Override public boolean isAcquired() { return true; }
        @Override public long remaining() { return verdict.remaining(); }
        @Override public long limit() { return verdict.limit(); }
        @Override public Optional<Duration> retryAfter() { return Optional.empty(); }
        @Override public Duration resetAfter() { return Duration.ofMillis(Math.max(0, verdict.resetAfterMillis())); }
        @Override public boolean isDegraded() { return false; }
        @Override public OptionalLong fencingToken() { return OptionalLong.empty(); }
        @Override public void close() {}

        @Override
        public CompletableFuture<Boolean> refund() {
            if (!REFUNDED.compareAndSet(this, 0, 1)) {
                return CompletableFuture.completedFuture(false);
            }
            try {
                // One id for every attempt and re-run of this refund: the store applies it once.
                long permitsWord = Algorithms.refundPermits(permits, Algorithms.newRefundId());
                return decider.decideAsync(request(Op.REFUND, permitsWord, verdict.token()), options)
                        .handle((v, failure) -> failure == null && v.granted());
            } catch (RuntimeException closing) {
                return CompletableFuture.completedFuture(false);
            }
        }

        @Override
        public String toString() {
            return "Lease[granted, remaining=" + verdict.remaining() + ", limit=" + verdict.limit()
                    + (refunded != 0 ? ", refunded" : "") + "]";
        }
    }

    @Override
    public String toString() {
        return "RateLimiter[" + name + ", key=" + key + ", " + spec + "]";
    }
}
