package dev.sluice.prefilter;

import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The opt-in allowance ({@link PrefilterMode#ALLOWANCE}): permits taken from the store in batches and granted
 * in this process, with the {@link RefusalCache}'s refusals besides.
 *
 * <p>A request that the local pool cannot serve becomes a refill: one store step for
 * {@code max(batch, n)} permits; the caller gets {@code n}, the rest go to the pool, spendable until
 * {@code s + min(resetAfter, maxHold) - margin} (for a fixed window: the end of the window the permits
 * were taken in). Every permit granted locally was taken from the store first, so the store's count
 * bounds admissions. One refill per key is in flight at a time; other callers of the key wait for it
 * (up to the decision timeout) and then use the pool. A refused batch falls back to the store's
 * {@code remaining}, then to {@code n}, so a nearly exhausted budget is still handed out. The batch
 * doubles when a batch lasted less than the refill interval, and shrinks after idleness or when a pool
 * expired mostly unused, within {@code [1, cap]}, {@code cap = max(1, floor(limit × maxBatchFraction))}.
 * After a refill the pool holds at most {@code max(batch, n) - 1 <= cap - 1} permits (for requests of
 * at most {@code cap}), so at any moment permits held by {@code k} processes and refused to another are
 * fewer than {@code k × cap}: the stranding bound.
 */
final class AllowancePool implements Prefilter {
    private final String name;
    private final long limit;
    private final long batchCap;
    private final boolean queueing;
    private final long decisionTimeoutNanos;
    private final long maxHoldNanos;
    private final long refillNanos;
    private final long idleKeepNanos;
    private final LocalClock clock;
    private final PrefilterStats stats;
    private final RefusalCache refusals;
    private final KeyStates states;
    /** Permits found expired while a monitor is held, told to the listeners once it is released. */
    private final ThreadLocal<long[]> pendingDiscards = ThreadLocal.withInitial(() -> new long[1]);

    AllowancePool(String name, LimitSpec spec, LimiterOptions limiterOptions, PrefilterOptions options,
            PrefilterStats stats) {
        this.name = name;
        this.limit = spec.limit();
        this.batchCap = Math.max(1, (long) Math.floor(spec.limit() * options.maxBatchFraction()));
        this.queueing = limiterOptions.queueLimit() > 0;
        this.decisionTimeoutNanos = limiterOptions.decisionTimeout().toNanos();
        this.maxHoldNanos = options.maxHold().toNanos();
        this.refillNanos = options.refillInterval().toNanos();
        this.idleKeepNanos = 4 * refillNanos;
        this.clock = new LocalClock(options);
        this.stats = stats;
        this.refusals = new RefusalCache(limiterOptions, options, stats);
        this.states = refusals.states();
    }

    @Override
    public PrefilterLease tryAcquire(String key, Remote remote, long permits) {
        long start = System.nanoTime();
        long deadline = start + decisionTimeoutNanos;
        long now = clock.now();
        KeyState s = states.findOrCreate(key, now + idleKeepNanos);
        long ask = -1;
        PrefilterLease local;
        synchronized (s) {
            while (true) {
                now = clock.now();
                local = localDecision(s, permits, now, true);
                if (local != null || permits == 0) {
                    break;
                }
                if (!s.refilling) {
                    ask = beginRefill(s, permits, now);
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break; // waited a whole decision timeout for another caller's refill: ask directly
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(s, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw (CancellationException) new CancellationException(
                            "interrupted while waiting for a refill of '" + name + "'").initCause(e);
                }
            }
        }
        flushDiscards();
        if (local != null) {
            return stats.local(local, permits, start);
        }
        if (ask < 0) {
            long sent = clock.now();
            return stats.record(refusals.afterDirect(key, permits, remote.tryAcquire(permits), sent));
        }
        try {
            while (true) {
                long sent = clock.now();
                Lease answer = remote.tryAcquire(ask);
                long next = afterRefillHop(key, permits, ask, answer, sent);
                if (next < 0) {
                    return stats.record(finishRefill(key, s, permits, ask, answer, sent));
                }
                ask = next;
            }
        } finally {
            endRefill(s);
        }
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(String key, Remote remote, long permits) {
        long start = System.nanoTime();
        long now = clock.now();
        PrefilterLease local = decideLocally(key, permits, now, true, start);
        if (local != null) {
            return CompletableFuture.completedFuture(local);
        }
        if (!queueing && permits > 0) {
            KeyState s = states.findOrCreate(key, now + idleKeepNanos);
            long ask;
            synchronized (s) {
                ask = s.refilling ? -1 : beginRefill(s, permits, now);
            }
            if (ask > 0) {
                CompletableFuture<Lease> out = new CompletableFuture<>();
                hopAsync(key, s, remote, permits, ask, start, out);
                out.whenComplete((l, t) -> endRefill(s));
                return out;
            }
        }
        return refusals.askAsync(key, remote, permits);
    }

    @Override
    public PrefilterLease acquire(String key, Remote remote, long permits, Duration maxWait)
            throws InterruptedException {
        long start = System.nanoTime();
        PrefilterLease local = decideLocally(key, permits, clock.now(), false, start);
        if (local != null) {
            return local;
        }
        return refusals.askWaiting(remote, permits, maxWait);
    }

    @Override
    public void forget(String key) {
        states.forget(key);
    }

    @Override
    public void close() {
        refusals.close();
    }

    /** A counted grant from the pool of {@code key} (or, with {@code refusalsToo}, its cached refusal), or null. */
    private PrefilterLease decideLocally(String key, long permits, long now, boolean refusalsToo, long start) {
        KeyState s = states.find(key);
        if (s == null) {
            return null;
        }
        PrefilterLease local;
        synchronized (s) {
            local = localDecision(s, permits, now, refusalsToo);
        }
        flushDiscards();
        return local == null ? null : stats.local(local, permits, start);
    }

    /** A grant from the pool, else (with {@code refusalsToo}) a cached refusal, or null. Guarded by {@code s}. */
    private PrefilterLease localDecision(KeyState s, long permits, long now, boolean refusalsToo) {
        long pool = s.expirePool(now);
        if (pool < 0) {
            pendingDiscards.get()[0] -= pool;
            pool = 0;
        }
        if (pool >= Math.max(1, permits)) {
            s.pool -= permits;
            s.keepAtLeast(now + idleKeepNanos);
            return PrefilterLeases.localGrant(s.storeRemaining + s.pool, s.storeLimit, s.storeResetAt - now);
        }
        return refusalsToo ? refusals.localRefusal(s, permits, now) : null;
    }

    private void flushDiscards() {
        long[] pending = pendingDiscards.get();
        long n = pending[0];
        pending[0] = 0;
        stats.discarded(n);
    }

    /** Starts a refill and returns how many permits to ask for. Guarded by {@code s}. */
    private long beginRefill(KeyState s, long permits, long now) {
        if (s.refilled) {
            long since = now - s.lastRefillAt;
            if (since > idleKeepNanos) {
                s.batch = Math.max(1, s.batch >> Math.min(62, since / idleKeepNanos)); // idle: shrink
            } else if (since < refillNanos) {
                s.batch = Math.min(batchCap, s.batch * 2); // used up quickly: grow
            }
        }
        s.refilled = true;
        s.lastRefillAt = now;
        s.refilling = true;
        return Math.min(limit, Math.max(s.batch, permits));
    }

    private void hopAsync(String key, KeyState s, Remote remote, long permits, long ask, long start,
            CompletableFuture<Lease> out) {
        long sent = clock.now();
        CompletableFuture<Lease> hop;
        try {
            hop = remote.acquireAsync(ask);
        } catch (RuntimeException e) {
            out.completeExceptionally(e);
            return;
        }
        hop.whenComplete((answer, failure) -> {
            if (failure != null) {
                out.completeExceptionally(failure);
                return;
            }
            try {
                long next = afterRefillHop(key, permits, ask, answer, sent);
                if (next < 0) {
                    out.complete(stats.record(finishRefill(key, s, permits, ask, answer, sent)));
                } else {
                    hopAsync(key, s, remote, permits, next, start, out);
                }
            } catch (RuntimeException e) {
                out.completeExceptionally(e);
            }
        });
    }

    /**
     * After the store answered a refill hop: the next, smaller ask after a refused batch (the store's
     * remaining if it would serve this request, else the request itself), or -1 when this answer is final.
     */
    private long afterRefillHop(String key, long permits, long ask, Lease answer, long sent) {
        stats.storeCall(ask, answer);
        refusals.remember(key, ask, answer, sent);
        if (answer.isAcquired() || answer.isDegraded() || ask <= permits) {
            return -1;
        }
        long remaining = answer.remaining();
        return remaining >= permits && remaining < ask ? remaining : permits;
    }

    private PrefilterLease finishRefill(String key, KeyState s, long permits, long ask, Lease answer, long sent) {
        if (!answer.isAcquired() || answer.isDegraded()) {
            return PrefilterLeases.store(answer);
        }
        long now = clock.now();
        long resetAfter = LocalClock.toNanos(answer.resetAfter());
        long until = clock.end(sent, Math.min(resetAfter, maxHoldNanos));
        long extra = ask - permits;
        long expired = 0;
        long remaining;
        synchronized (s) {
            s.storeRemaining = answer.remaining();
            s.storeLimit = answer.limit();
            s.storeResetAt = sent + resetAfter;
            long held = s.expirePool(now);
            if (held < 0) {
                expired = -held; // the pool ran out during the hop: the batch must not inherit its past deadline
            }
            if (extra > 0 && until - now > 0) {
                s.poolUntil = s.pool > 0 ? Math.min(s.poolUntil - now, until - now) + now : until;
                s.pool += extra;
                s.keepAtLeast(s.poolUntil);
                extra = 0;
            }
            s.keepAtLeast(now + idleKeepNanos);
            remaining = s.storeRemaining + s.pool;
        }
        stats.discarded(extra + expired);
        states.keep(key, s);
        return PrefilterLeases.store(answer, remaining);
    }

    private void endRefill(KeyState s) {
        synchronized (s) {
            if (s.refilling) {
                s.refilling = false;
                s.notifyAll();
            }
        }
    }

    /** The largest batch, {@code max(1, floor(limit × maxBatchFraction))} (for tests). */
    long batchCap() {
        return batchCap;
    }

    /** Permits held in the local pool of {@code key} and spendable now (for tests). */
    long pooled(String key) {
        KeyState s = states.find(key);
        if (s == null) {
            return 0;
        }
        synchronized (s) {
            return s.pool > 0 && clock.now() - s.poolUntil < 0 ? s.pool : 0;
        }
    }

    /** The current batch size of {@code key} (for tests). */
    long batch(String key) {
        KeyState s = states.find(key);
        if (s == null) {
            return 0;
        }
        synchronized (s) {
            return s.batch;
        }
    }
}
