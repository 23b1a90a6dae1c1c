package dev.sluice.prefilter;

import com.github.benmanes.caffeine.cache.Cache;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimiterOptions;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The exact pre-filter ({@link PrefilterMode#REFUSAL_CACHE}), whose refusals {@link AllowancePool} uses too.
 *
 * <p>A store refusal of {@code n} permits with retry-after {@code r}, for a request sent at local time
 * {@code s}, means: no request of {@code n} or more permits can succeed before the store's instant
 * {@code t0 + r}, where {@code t0 >= s} is when the store decided (others asking only push it later;
 * concurrency limiters, where a release frees permits at any moment, are never cached). So refusing locally
 * while {@code now < s + r - margin} is exact: it never refuses what the store would grant. Measuring from
 * the send time, on the monotonic local clock, makes the local refusal end no later than the store's,
 * whatever the offset between the clocks; the margin (fixed, default 1 ms, plus 0.1% of {@code r}) covers
 * the store clock's millisecond truncation and clock-rate differences. A probe is a request of one permit.
 * A request queued in the wrapped limiter may be decided much later than it was sent, so its refusal is not
 * cached.
 */
final class RefusalCache implements Prefilter {
    private final boolean queueing;
    private final LocalClock clock;
    private final PrefilterStats stats;
    private final KeyStates states;

    RefusalCache(LimiterOptions limiterOptions, PrefilterOptions options, PrefilterStats stats) {
        this.queueing = limiterOptions.queueLimit() > 0;
        this.clock = new LocalClock(options);
        this.stats = stats;
        this.states = new KeyStates(options, stats);
    }

    /** The per-key memory, which the allowance shares. */
    KeyStates states() {
        return states;
    }

    /** The cache of per-key state (for tests). */
    Cache<String, KeyState> cache() {
        return states.cache();
    }

    @Override
    public PrefilterLease tryAcquire(String key, Remote remote, long permits) {
        long start = System.nanoTime();
        long now = clock.now();
        PrefilterLease local = decideLocally(key, permits, now, start);
        if (local != null) {
            return local;
        }
        return stats.record(afterDirect(key, permits, remote.tryAcquire(permits), now));
    }

    @Override
    public CompletableFuture<Lease> acquireAsync(String key, Remote remote, long permits) {
        long start = System.nanoTime();
        PrefilterLease local = decideLocally(key, permits, clock.now(), start);
        if (local != null) {
            return CompletableFuture.completedFuture(local);
        }
        return askAsync(key, remote, permits);
    }

    @Override
    public PrefilterLease acquire(String key, Remote remote, long permits, Duration maxWait)
            throws InterruptedException {
        return askWaiting(remote, permits, maxWait);
    }

    @Override
    public void forget(String key) {
        states.forget(key);
    }

    @Override
    public void close() {
        states.clear();
    }

    /** A counted local refusal of {@code key}, or null. */
    private PrefilterLease decideLocally(String key, long permits, long now, long start) {
        KeyState s = states.find(key);
        if (s == null) {
            return null;
        }
        PrefilterLease local;
        synchronized (s) {
            local = localRefusal(s, permits, now);
        }
        return local == null ? null : stats.local(local, permits, start);
    }

    /** A refusal from {@code s}, or null. Guarded by {@code s}. */
    PrefilterLease localRefusal(KeyState s, long permits, long now) {
        if (!s.refusesLocally(Math.max(1, permits), now)) {
            return null;
        }
        return PrefilterLeases.localRefusal(s.refusedRemaining, s.refusedLimit, s.retryAt - now,
                s.refusedResetAt - now);
    }

    /** The store's answer to {@code permits} asked for at {@code sent}: counted, and a refusal remembered. */
    PrefilterLease afterDirect(String key, long permits, Lease answer, long sent) {
        stats.storeCall(permits, answer);
        remember(key, Math.max(1, permits), answer, sent);
        return PrefilterLeases.store(answer);
    }

    /** Asks the store without blocking; through the wrapped limiter's queue if it has one. */
    CompletableFuture<Lease> askAsync(String key, Remote remote, long permits) {
        if (queueing) {
            return remote.acquireAsync(permits, l -> {
                stats.storeCall(permits, l);
                return stats.record(PrefilterLeases.store(l));
            });
        }
        long sent = clock.now();
        return remote.acquireAsync(permits, l -> stats.record(afterDirect(key, permits, l, sent)));
    }

    /** Waits in the wrapped limiter's queue. */
    PrefilterLease askWaiting(Remote remote, long permits, Duration maxWait) throws InterruptedException {
        Lease answer = remote.acquire(permits, maxWait);
        stats.storeCall(permits, answer);
        return stats.record(PrefilterLeases.store(answer));
    }

    /** Remembers a store refusal of {@code asked} permits sent at {@code sent}, if it says when to retry. */
    void remember(String key, long asked, Lease answer, long sent) {
        if (answer.isAcquired() || answer.isDegraded()) {
            return;
        }
        Optional<Duration> retryAfter = answer.retryAfter();
        if (retryAfter.isEmpty()) {
            return;
        }
        long r = LocalClock.toNanos(retryAfter.get());
        long until = clock.end(sent, r);
        long now = clock.now();
        if (until - now <= 0) {
            return;
        }
        long resetAt = sent + LocalClock.toNanos(answer.resetAfter());
        long remaining = answer.remaining();
        long limit = answer.limit();
        states.update(key, until, s -> s.refuse(asked, until, sent + r, remaining, limit, resetAt, now));
    }
}
