package dev.sluice.limiter.runtime;

import dev.sluice.limiter.algorithm.Inspection;
import dev.sluice.limiter.algorithm.Op;
import dev.sluice.limiter.algorithm.Overflow;
import dev.sluice.limiter.algorithm.Verdict;
import dev.sluice.limiter.runtime.WaitQueue.Waiter;
import dev.sluice.limiter.store.StepRequest;

import dev.sluice.limiter.CapacityExceededException;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.Ticker;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * The runtime of one key: one decision with its failure mode applied. An acquisition that may wait goes to the
 * limiter's {@link WaitQueue}; a grant becomes a {@link RateGrant} (refundable once) or a
 * {@link ConcurrencyLease} (renewed until released).
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

    private final WaitQueue queue;
    /** Concurrency leases held here; a rate limiter (one per partition and decision, often) never has any. */
    private final Set<ConcurrencyLease> liveLeases;
    /** Whether the failure mode is {@link FailureMode#LOCAL}: the store's answers and failures go to the fallback. */
    private final boolean localFallback;
    /** This limiter in the fallback's in-process runtime of the current outage, or {@code null}. */
    private volatile LocalTwin localTwin;

    /**
     * A limiter's stand-in while the store is away: in {@code runtime}, on its share for {@code replicas}, or
     * {@code null} where the share is none.
     */
    record LocalTwin(DefaultRateLimiters runtime, int replicas, DefaultRateLimiter limiter) {}

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
        this.liveLeases = concurrency ? ConcurrentHashMap.newKeySet() : Collections.emptySet();
        this.onIdle = onIdle;
        this.ownerClosed = ownerClosed;
        this.queue = new WaitQueue(this, decider, options, stats);
        this.localFallback = options.failureMode() == FailureMode.LOCAL;
    }

    @Override public String name() { return name; }
    @Override public String key() { return key; }
    @Override public LimitSpec spec() { return spec; }
    @Override public LimiterOptions options() { return options; }
    @Override public LimiterStatistics statistics() { return stats.snapshot(); }

    StepRequest request(Op op, long permits, long leaseId) {
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
        spec.checkPermits(permits, name);
    }

    // ---- one decision ----

    @Override
    public Lease tryAcquire(long permits) {
        checkPermits(permits);
        if (queue.isClosed()) {
            throw new IllegalStateException("limiter '" + name + "' is closed");
        }
        long start = decider.ticker.read();
        if (localFallback && owner.fallback.skipsStore()) {
            return record(decideLocally(permits), start);
        }
        Verdict verdict;
        try {
            // A grant the store makes after this caller gave up (a degraded answer) goes back when it arrives.
            verdict = decider.decide(acquireRequest(permits), options, late -> giveBack(late, permits));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw (CancellationException) new CancellationException("interrupted while deciding for '" + name + "'")
                    .initCause(e);
        } catch (Throwable failure) {
            return record(unavailable(failure, start, permits), start);
        }
        if (localFallback) {
            owner.fallback.answered();
        }
        return record(toLease(verdict, permits), start);
    }

    // ---- the key as an operator sees it ----

    @Override
    public KeyState inspect() {
        return keyState(operate(request(Op.INSPECT, 0, 0)));
    }

    @Override
    public KeyState reset() {
        return reset(spec.limit());
    }

    @Override
    public KeyState reset(long remaining) {
        spec.checkRemaining(remaining, name);
        KeyState after = keyState(operate(request(Op.RESET, remaining, 0)));
        permitsReturned();
        return after;
    }

    /** One step that is no decision: no failure mode, no statistics; a usage error names the key. */
    private Verdict operate(StepRequest request) {
        if (queue.isClosed()) {
            throw new IllegalStateException("limiter '" + name + "' is closed");
        }
        try {
            return decider.decide(request, options);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw (CancellationException) new CancellationException("interrupted while reading '" + name + "'")
                    .initCause(e);
        } catch (Error | DecisionUnavailableException e) {
            throw e;
        } catch (Throwable failure) {
            if (Decider.isUsageError(failure)) {
                throw withKey((RuntimeException) failure);
            }
            String why = failure instanceof TimeoutException ? "no answer within " + options.decisionTimeout()
                    : "the store failed: " + failure;
            throw new DecisionUnavailableException(name, why, failure);
        }
    }

    private KeyState keyState(Verdict v) {
        boolean onCell = Overflow.isCellToken(v.token());
        Optional<Duration> retryAfter = v.remaining() > 0 ? Optional.of(Duration.ZERO)
                : v.retryAfterMillis() >= 0 ? Optional.of(Duration.ofMillis(v.retryAfterMillis())) : Optional.empty();
        // A read of a key that owes answers a remaining below 0 by what it still owes (see Debt).
        return new KeyState(key, spec, v.limit(), Math.max(0, v.remaining()),
                Duration.ofMillis(Math.max(0, v.resetAfterMillis())), retryAfter,
                Instant.ofEpochMilli(Inspection.timeOf(v.token())), !onCell && Inspection.hasOwnState(v.token()), onCell,
                Math.max(0, -v.remaining()));
    }

    /** Counts a lease handed to a caller. */
    Lease record(Lease lease, long start) {
        DecisionResult result = lease.isDegraded() ? DecisionResult.DEGRADED
                : lease.isAcquired() ? DecisionResult.GRANTED : DecisionResult.REFUSED;
        stats.record(result, lease.isDegraded() ? -1 : lease.remaining(), start);
        return lease;
    }

    private Lease toLease(Verdict v, long permits) {
        if (concurrency && v.granted() && permits > 0) {
            ConcurrencyLease lease = new ConcurrencyLease(this, v);
            liveLeases.add(lease);
            lease.startRenewal();
            return lease;
        }
        return v.granted() && permits > 0 ? new RateGrant(this, v, permits) : Verdicts.asLease(v);
    }

    /** The local fallback's decision, counted for listeners. */
    private Lease decideLocally(long permits) {
        Lease lease = owner.fallback.decide(this, permits);
        stats.fallbackDecided(lease.isAcquired());
        return lease;
    }

    LocalTwin localTwin() {
        return localTwin;
    }

    void localTwin(LocalTwin twin) {
        this.localTwin = twin;
    }

    /** Applies the failure mode; rethrows usage errors, which no failure mode hides. */
    private Lease unavailable(Throwable failure, long start, long permits) {
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
        if (mode == FailureMode.LOCAL) {
            owner.fallback.failed();
            return decideLocally(permits);
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
    CompletableFuture<Lease> decideAsync(long permits) {
        long start = decider.ticker.read();
        if (localFallback && owner.fallback.skipsStore()) {
            try {
                return CompletableFuture.completedFuture(decideLocally(permits));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        CompletableFuture<Lease> out = new CompletableFuture<>();
        CompletableFuture<Verdict> decision = decider.decideAsync(acquireRequest(permits), options,
                late -> giveBack(late, permits));
        decision.whenComplete((v, failure) -> {
            if (failure == null) {
                if (localFallback) {
                    owner.fallback.answered();
                }
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
                out.complete(unavailable(failure, start, permits));
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

    @Override
    public CompletableFuture<Lease> acquireAsync(long permits) {
        checkPermits(permits);
        Waiter waiter = new Waiter(permits, decider.ticker.read());
        if (queue.isClosed()) {
            waiter.future.complete(closedRefusal());
            return waiter.future;
        }
        if (mayQueueOrHold() && queue.queuesFirst(permits)) {
            queue.enqueue(waiter, null);
            return waiter.future;
        }
        CompletableFuture<Lease> decision = decideAsync(permits);
        decision.whenComplete((lease, failure) -> {
            if (failure != null) {
                waiter.future.completeExceptionally(failure);
            } else if (lease.isAcquired() || lease.isDegraded() || permits == 0 || options.queueLimit() == 0) {
                queue.deliver(waiter, lease);
            } else {
                queue.enqueue(waiter, lease);
            }
        });
        // A caller who gives up before the first decision is back (cancels, or completes the future
        // itself) cancels that decision: if it still waits in the store unsent, it is never charged.
        waiter.future.whenComplete((lease, failure) -> decision.cancel(false));
        return waiter.future;
    }

    Lease closedRefusal() {
        return Lease.refused(0, spec.limit(), Optional.empty(), Duration.ZERO);
    }

    /** A lease nobody will hold: a rate grant is refunded, a concurrency lease released; others are values. */
    static void giveBack(Lease lease) {
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
            new RateGrant(this, late, permits).refund();
        }
    }

    /** Whether an acquisition here can wait in the queue or hold a lease; if not, this limiter is never busy. */
    boolean mayQueueOrHold() {
        return concurrency || options.queueLimit() > 0;
    }

    /** True while this limiter holds waiters or leases, so a partitioned limiter must keep it. */
    boolean isBusy() {
        return queue.isBusy() || !liveLeases.isEmpty();
    }

    void maybeIdle() {
        if (onIdle != null && !isBusy()) {
            onIdle.run();
        }
    }

    // ---- what its leases ask of it ----

    Decider decider() {
        return decider;
    }

    /** Whether a held concurrency lease must stop renewing: this limiter, or its partitioned one, closed. */
    boolean stopsRenewals() {
        return queue.isClosed() || ownerClosed.getAsBoolean();
    }

    /** A concurrency lease being released no longer keeps this limiter busy. */
    void forget(ConcurrencyLease lease) {
        liveLeases.remove(lease);
    }

    /** Permits came back in this process: a waiter may now be served. */
    void permitsReturned() {
        queue.pumpNowIfWaiting();
        maybeIdle();
    }

    @Override
    public Lease acquire(long permits, Duration maxWait) throws InterruptedException {
        checkPermits(permits);
        if (maxWait == null || maxWait.isZero() || maxWait.isNegative()) {
            return tryAcquire(permits);
        }
        long waitNanos = Ticker.toNanosSaturated(maxWait); // before anything is queued: it cannot fail afterwards
        long start = decider.ticker.read();
        return Waits.await(acquireAsync(permits), waitNanos, () -> record(closedRefusal(), start), name);
    }

    @Override
    public void close() {
        if (!queue.close()) {
            return;
        }
        for (ConcurrencyLease lease : liveLeases) {
            lease.stopRenewal();
        }
        liveLeases.clear();
    }

    @Override
    public String toString() {
        return "RateLimiter[" + name + ", key=" + key + ", " + spec + "]";
    }
}
