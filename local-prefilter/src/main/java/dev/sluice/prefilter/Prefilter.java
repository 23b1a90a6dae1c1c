package dev.sluice.prefilter;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The pre-filter of one limiter (all partitions of a partitioned one share it), keyed by store key.
 *
 * <p><b>Refusal cache.</b> A store refusal of {@code n} permits with retry-after {@code r}, for a request
 * sent at local time {@code s}, means: no request of {@code n} or more permits can succeed before the
 * store's instant {@code t0 + r}, where {@code t0 >= s} is when the store decided (others asking only
 * push it later; concurrency limiters, where a release frees permits at any moment, are never cached).
 * So refusing locally while {@code now < s + r - margin} is exact: it never refuses what the store would
 * grant. Measuring from the send time, on the monotonic local clock, makes the local refusal end no later
 * than the store's, whatever the offset between the clocks; the margin (fixed, default 1 ms, plus 0.1%
 * of {@code r}) covers the store clock's millisecond truncation and clock-rate differences. A probe is a
 * request of one permit.
 *
 * <p><b>Allowance.</b> A request that the local pool cannot serve becomes a refill: one store step for
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
 *
 * <p>Memory: one Caffeine entry per key with a refusal, a pool or (allowance) adaptive state, bounded
 * by {@code maximumSize}; an entry expires when its refusal and its pool have (allowance state is kept
 * for four refill intervals of idleness).
 */
final class Prefilter {

    /** How to reach the store for one key. */
    interface Remote {
        Lease tryAcquire(long permits);

        CompletableFuture<Lease> acquireAsync(long permits);

        Lease acquire(long permits, Duration maxWait) throws InterruptedException;
    }

    private final String name;
    private final LimitSpec spec;
    private final LimiterOptions limiterOptions;
    private final boolean active;
    private final boolean allowance;
    private final boolean queueing;
    private final long batchCap;
    private final long fixedMarginNanos;
    private final long maxHoldNanos;
    private final long refillNanos;
    private final long idleKeepNanos;
    private final Ticker ticker;
    private final PrefilterStats stats;
    private final Cache<String, KeyState> cache;

    Prefilter(String name, LimitSpec spec, LimiterOptions limiterOptions, PrefilterOptions options) {
        this.name = name;
        this.spec = spec;
        this.limiterOptions = limiterOptions;
        boolean concurrency = spec instanceof LimitSpec.Concurrency;
        if (concurrency && options.mode() == PrefilterMode.ALLOWANCE) {
            throw new IllegalArgumentException("mode ALLOWANCE does not apply to concurrency limiters ('" + name
                    + "'): permits return on release, so a local allowance would hold them; use REFUSAL_CACHE");
        }
        this.active = !concurrency;
        this.allowance = options.mode() == PrefilterMode.ALLOWANCE;
        this.queueing = limiterOptions.queueLimit() > 0;
        this.batchCap = Math.max(1, (long) Math.floor(spec.limit() * options.maxBatchFraction()));
        this.fixedMarginNanos = options.clockMargin().toNanos();
        this.maxHoldNanos = options.maxHold().toNanos();
        this.refillNanos = options.refillInterval().toNanos();
        this.idleKeepNanos = 4 * refillNanos;
        this.ticker = options.ticker();
        this.stats = new PrefilterStats(name, limiterOptions.listeners(), options.listeners());
        this.cache = Caffeine.newBuilder()
                .maximumSize(options.maximumSize())
                .ticker(ticker)
                .executor(options.executor())
                .expireAfter(new KeepUntil())
                .evictionListener(this::evicted)
                .build();
    }

    // ---- per-key state ----

    /** What this process knows of one key. Fields are guarded by the instance's monitor. */
    static final class KeyState {
        long refusedPermits; // 0: no refusal cached
        long refusedUntil; // local time: refuse while now < refusedUntil
        long retryAt; // local time: send time + the store's retry-after (for the lease's retryAfter)
        long refusedRemaining;
        long refusedLimit;
        long refusedResetAt;

        long pool;
        long poolUntil;
        long storeRemaining;
        long storeLimit;
        long storeResetAt;
        boolean refilling;
        long batch = 1;
        boolean refilled;
        long lastRefillAt;

        /** When the cache may forget this entry (local time); read by the cache's expiry. */
        volatile long keepUntil;

        KeyState(long keepUntil) {
            this.keepUntil = keepUntil;
        }

        void keepAtLeast(long until) {
            if (until - keepUntil > 0) {
                keepUntil = until;
            }
        }

        /** Permits of the pool still spendable at {@code now}; discards and returns an expired pool as negative. */
        long expirePool(long now) {
            if (pool > 0 && now - poolUntil >= 0) {
                long lost = pool;
                pool = 0;
                if (lost * 2 > batch) {
                    batch = Math.max(1, batch / 2); // taken too much: most of it went unused
                }
                return -lost;
            }
            return pool;
        }

        boolean refusesLocally(long asked, long now) {
            return refusedPermits > 0 && asked >= refusedPermits && now - refusedUntil < 0;
        }

        void refuse(long asked, long until, long retryAt, long remaining, long limit, long resetAt, long now) {
            boolean current = refusedPermits > 0 && now - refusedUntil < 0;
            if (current && refusedPermits <= asked && refusedUntil - until >= 0) {
                return; // the cached refusal already covers this one
            }
            refusedPermits = asked;
            refusedUntil = until;
            this.retryAt = retryAt;
            refusedRemaining = remaining;
            refusedLimit = limit;
            refusedResetAt = resetAt;
            keepAtLeast(until);
        }
    }

    /** Entries live until their {@link KeyState#keepUntil}, re-read whenever the entry is read or written. */
    private static final class KeepUntil implements Expiry<String, KeyState> {
        @Override
        public long expireAfterCreate(String key, KeyState value, long currentTime) {
            return Math.max(0, value.keepUntil - currentTime);
        }

        @Override
        public long expireAfterUpdate(String key, KeyState value, long currentTime, long currentDuration) {
            return Math.max(0, value.keepUntil - currentTime);
        }

        @Override
        public long expireAfterRead(String key, KeyState value, long currentTime, long currentDuration) {
            return Math.max(0, value.keepUntil - currentTime);
        }
    }

    private void evicted(String key, KeyState state, RemovalCause cause) {
        if (state == null) {
            return;
        }
        long lost;
        synchronized (state) {
            lost = state.pool;
            state.pool = 0;
        }
        stats.discarded(lost);
    }

    /** Makes the cache hold {@code state} under {@code key} with its current lifetime; false if it was replaced. */
    private boolean keep(String key, KeyState state) {
        KeyState held = cache.asMap().compute(key, (k, v) -> v == null ? state : v);
        if (held == state) {
            return true;
        }
        long lost;
        synchronized (state) {
            lost = state.pool; // another entry took this key's place: our pool cannot be found any more
            state.pool = 0;
        }
        stats.discarded(lost);
        return false;
    }

    // ---- decisions ----

    String name() {
        return name;
    }

    long batchCap() {
        return batchCap;
    }

    private void checkPermits(long permits) {
        if (permits < 0 || permits > spec.limit()) {
            throw new IllegalArgumentException("permits must be between 0 and " + spec.limit() + " (the limit of '"
                    + name + "'), was " + permits);
        }
    }

    private long margin(long nanos) {
        return fixedMarginNanos + nanos / 1000;
    }

    private static long toNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4;
        }
    }

    /** One decision; blocks at most for the store's steps. */
    PrefilterLease tryAcquire(String key, Remote remote, long permits) {
        checkPermits(permits);
        long start = System.nanoTime();
        if (!active) {
            return stats.record(PrefilterLeases.store(remote.tryAcquire(permits)));
        }
        return allowance ? allowanceTry(key, remote, permits, start) : refusalTry(key, remote, permits, start);
    }

    /** One decision without blocking; queues in the wrapped limiter when its options say so. */
    CompletableFuture<Lease> acquireAsync(String key, Remote remote, long permits) {
        checkPermits(permits);
        long start = System.nanoTime();
        if (!active) {
            return map(remote.acquireAsync(permits), l -> stats.record(PrefilterLeases.store(l)));
        }
        long now = ticker.read();
        KeyState s = cache.getIfPresent(key);
        if (s != null) {
            PrefilterLease local;
            synchronized (s) {
                local = allowance ? localGrant(s, permits, now) : null;
                if (local == null) {
                    local = localRefusal(s, permits, now);
                }
            }
            flushDiscards();
            if (local != null) {
                return CompletableFuture.<Lease>completedFuture(stats.local(local, permits, start));
            }
        }
        if (queueing) {
            // A queued request may be decided much later: its refusal's send time is unknown, so it is not cached.
            return map(remote.acquireAsync(permits), l -> {
                stats.storeCall(permits, l);
                return stats.record(PrefilterLeases.store(l));
            });
        }
        if (allowance && permits > 0) {
            KeyState state = allowanceState(key, now);
            long ask;
            synchronized (state) {
                ask = state.refilling ? -1 : beginRefill(state, permits, now);
            }
            if (ask > 0) {
                return refillAsync(key, state, remote, permits, ask, start);
            }
        }
        long sent = ticker.read();
        return map(remote.acquireAsync(permits), l -> stats.record(afterDirect(key, permits, l, sent)));
    }

    /**
     * {@code source} mapped by {@code f}; cancelling the result cancels {@code source}, so a waiter in the
     * wrapped limiter's queue is removed. A lease that arrives for a cancelled result is closed.
     */
    private static CompletableFuture<Lease> map(CompletableFuture<Lease> source, Function<Lease, PrefilterLease> f) {
        CompletableFuture<Lease> out = new CompletableFuture<>();
        source.whenComplete((l, failure) -> {
            if (failure != null) {
                out.completeExceptionally(failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure);
                return;
            }
            PrefilterLease lease;
            try {
                lease = f.apply(l);
            } catch (RuntimeException e) {
                out.completeExceptionally(e);
                return;
            }
            if (!out.complete(lease)) {
                lease.close();
            }
        });
        out.whenComplete((l, failure) -> {
            if (out.isCancelled()) {
                source.cancel(false);
            }
        });
        return out;
    }

    /**
     * Waits in the wrapped limiter's queue (which must have one) for up to {@code maxWait}; only a local
     * allowance is used first, since a cached refusal would not wait.
     */
    PrefilterLease acquire(String key, Remote remote, long permits, Duration maxWait) throws InterruptedException {
        checkPermits(permits);
        long start = System.nanoTime();
        if (allowance) {
            long now = ticker.read();
            KeyState s = cache.getIfPresent(key);
            if (s != null) {
                PrefilterLease local;
                synchronized (s) {
                    local = localGrant(s, permits, now);
                }
                flushDiscards();
                if (local != null) {
                    return stats.local(local, permits, start);
                }
            }
        }
        Lease l = remote.acquire(permits, maxWait);
        if (active) {
            stats.storeCall(permits, l);
        }
        return stats.record(PrefilterLeases.store(l));
    }

    // ---- refusal cache ----

    private PrefilterLease refusalTry(String key, Remote remote, long permits, long start) {
        long now = ticker.read();
        KeyState s = cache.getIfPresent(key);
        if (s != null) {
            PrefilterLease local;
            synchronized (s) {
                local = localRefusal(s, permits, now);
            }
            if (local != null) {
                return stats.local(local, permits, start);
            }
        }
        Lease l = remote.tryAcquire(permits);
        return stats.record(afterDirect(key, permits, l, now));
    }

    private PrefilterLease afterDirect(String key, long permits, Lease l, long sent) {
        stats.storeCall(permits, l);
        cacheRefusal(key, Math.max(1, permits), l, sent);
        return PrefilterLeases.store(l);
    }

    /** Guarded by {@code s}. */
    private PrefilterLease localRefusal(KeyState s, long permits, long now) {
        if (!s.refusesLocally(Math.max(1, permits), now)) {
            return null;
        }
        return PrefilterLeases.localRefusal(s.refusedRemaining, s.refusedLimit, s.retryAt - now,
                s.refusedResetAt - now);
    }

    /** Remembers a store refusal of {@code asked} permits sent at {@code sent}, if it says when to retry. */
    private void cacheRefusal(String key, long asked, Lease l, long sent) {
        if (l.isAcquired() || l.isDegraded()) {
            return;
        }
        Optional<Duration> retryAfter = l.retryAfter();
        if (retryAfter.isEmpty()) {
            return;
        }
        long r = toNanos(retryAfter.get());
        long until = sent + r - margin(r);
        long now = ticker.read();
        if (until - now <= 0) {
            return;
        }
        long resetAt = sent + toNanos(l.resetAfter());
        long remaining = l.remaining();
        long limit = l.limit();
        cache.asMap().compute(key, (k, v) -> {
            KeyState s = v != null ? v : new KeyState(until);
            synchronized (s) {
                s.refuse(asked, until, sent + r, remaining, limit, resetAt, now);
            }
            return s;
        });
    }

    // ---- allowance ----

    private KeyState allowanceState(String key, long now) {
        return cache.get(key, k -> new KeyState(now + idleKeepNanos));
    }

    /** A grant from the pool, or null. Guarded by {@code s}. */
    private PrefilterLease localGrant(KeyState s, long permits, long now) {
        long pool = s.expirePool(now);
        if (pool < 0) {
            discardLater(-pool);
            pool = 0;
        }
        if (pool < Math.max(1, permits)) {
            return null;
        }
        s.pool -= permits;
        s.keepAtLeast(now + idleKeepNanos);
        return PrefilterLeases.localGrant(s.storeRemaining + s.pool, s.storeLimit, s.storeResetAt - now);
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
        return Math.min(spec.limit(), Math.max(s.batch, permits));
    }

    private PrefilterLease allowanceTry(String key, Remote remote, long permits, long start) {
        long deadline = start + limiterOptions.decisionTimeout().toNanos();
        long now = ticker.read();
        KeyState s = allowanceState(key, now);
        long ask = -1;
        PrefilterLease local;
        synchronized (s) {
            while (true) {
                now = ticker.read();
                local = localGrant(s, permits, now);
                if (local == null) {
                    local = localRefusal(s, permits, now);
                }
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
            long sent = ticker.read();
            return stats.record(afterDirect(key, permits, remote.tryAcquire(permits), sent));
        }
        try {
            while (true) {
                long sent = ticker.read();
                Lease l = remote.tryAcquire(ask);
                long next = afterRefillHop(key, permits, ask, l, sent);
                if (next < 0) {
                    return stats.record(finishRefill(key, s, permits, ask, l, sent));
                }
                ask = next;
            }
        } finally {
            endRefill(s);
        }
    }

    private CompletableFuture<Lease> refillAsync(String key, KeyState s, Remote remote, long permits, long ask,
            long start) {
        CompletableFuture<Lease> out = new CompletableFuture<>();
        hopAsync(key, s, remote, permits, ask, start, out);
        out.whenComplete((l, t) -> endRefill(s));
        return out;
    }

    private void hopAsync(String key, KeyState s, Remote remote, long permits, long ask, long start,
            CompletableFuture<Lease> out) {
        long sent = ticker.read();
        CompletableFuture<Lease> hop;
        try {
            hop = remote.acquireAsync(ask);
        } catch (RuntimeException e) {
            out.completeExceptionally(e);
            return;
        }
        hop.whenComplete((l, failure) -> {
            if (failure != null) {
                out.completeExceptionally(failure);
                return;
            }
            try {
                long next = afterRefillHop(key, permits, ask, l, sent);
                if (next < 0) {
                    out.complete(stats.record(finishRefill(key, s, permits, ask, l, sent)));
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
    private long afterRefillHop(String key, long permits, long ask, Lease l, long sent) {
        stats.storeCall(ask, l);
        cacheRefusal(key, ask, l, sent);
        if (l.isAcquired() || l.isDegraded() || ask <= permits) {
            return -1;
        }
        long remaining = l.remaining();
        return remaining >= permits && remaining < ask ? remaining : permits;
    }

    private PrefilterLease finishRefill(String key, KeyState s, long permits, long ask, Lease l, long sent) {
        if (!l.isAcquired() || l.isDegraded()) {
            return PrefilterLeases.store(l);
        }
        long now = ticker.read();
        long resetAfter = toNanos(l.resetAfter());
        long hold = Math.min(resetAfter, maxHoldNanos);
        long until = sent + hold - margin(hold);
        long extra = ask - permits;
        long remaining;
        synchronized (s) {
            s.storeRemaining = l.remaining();
            s.storeLimit = l.limit();
            s.storeResetAt = sent + resetAfter;
            if (extra > 0 && until - now > 0) {
                s.poolUntil = s.pool > 0 ? Math.min(s.poolUntil - now, until - now) + now : until;
                s.pool += extra;
                s.keepAtLeast(s.poolUntil);
                extra = 0;
            }
            s.keepAtLeast(now + idleKeepNanos);
            remaining = s.storeRemaining + s.pool;
        }
        stats.discarded(extra);
        keep(key, s);
        return PrefilterLeases.store(l, remaining);
    }

    private void endRefill(KeyState s) {
        synchronized (s) {
            if (s.refilling) {
                s.refilling = false;
                s.notifyAll();
            }
        }
    }

    // ---- counting ----

    private final ThreadLocal<long[]> pendingDiscards = ThreadLocal.withInitial(() -> new long[1]);

    /** Notes permits discarded while a monitor is held; reported by {@link #flushDiscards()}. */
    private void discardLater(long permits) {
        pendingDiscards.get()[0] += permits;
    }

    private void flushDiscards() {
        long[] pending = pendingDiscards.get();
        long n = pending[0];
        pending[0] = 0;
        stats.discarded(n);
    }

    LimiterStatistics statistics(long queuedPermits) {
        return stats.snapshot(queuedPermits);
    }

    /** Permits held in the local pool of {@code key} and spendable now (for tests). */
    long pooled(String key) {
        KeyState s = cache.getIfPresent(key);
        if (s == null) {
            return 0;
        }
        synchronized (s) {
            return s.pool > 0 && ticker.read() - s.poolUntil < 0 ? s.pool : 0;
        }
    }

    /** The current batch size of {@code key} (for tests). */
    long batch(String key) {
        KeyState s = cache.getIfPresent(key);
        if (s == null) {
            return 0;
        }
        synchronized (s) {
            return s.batch;
        }
    }

    Cache<String, KeyState> cache() {
        return cache;
    }

    void close() {
        cache.invalidateAll();
    }
}
