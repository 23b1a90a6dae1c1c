package dev.sluice.limiter.runtime;

import dev.sluice.limiter.store.DecisionStore;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.FailureMode;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.RuntimeSettings;
import dev.sluice.limiter.Ticker;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@link FailureMode#LOCAL} for one runtime: whether its store is away, and the in-process store that decides
 * meanwhile.
 *
 * <p>The store is away from a failure of a limiter with this failure mode (no verdict within the decision timeout,
 * or a failure the runtime does not retry) until the store answers one again. While it is away, such limiters decide
 * in an in-process runtime ({@link LocalRateLimiters}: the same algorithms, the same leases) on their share of the
 * spec ({@link LocalShare}), without asking the store, except that once every {@link #RETRY_INTERVAL} one caller asks
 * it: that caller waits at most its decision timeout, as every caller always does, and the others keep deciding
 * locally meanwhile. The first answer drops the in-process runtime with all its state, so a later outage starts
 * from nothing, and decisions are the store's again.
 *
 * <p>The replicas a share divides by: the larger of {@link LimiterOptions#fallbackReplicas()} and the store's
 * {@linkplain DecisionStore#members() members} when it last answered a limiter with this failure mode (not the
 * members now: during an outage the members a replica still sees are no measure of the replicas deciding alone).
 * Neither known, the share is none and the fallback refuses. Both are the same on every replica that saw the same
 * cluster (configuration, and a membership every member agrees on), so the rule that decides does not depend on one
 * replica's heap or timers; the share itself never needs to agree across replicas for the bound, only never to be
 * larger than the limit over the replicas deciding.
 *
 * <p>The local clock is the wall clock (so replicas' fixed windows align as the store's do) unless the runtime runs
 * on a ticker of a test's, whose time it then follows.
 */
final class LocalFallback {
    /** How long a replica decides locally after a failure before asking the store again. */
    static final Duration RETRY_INTERVAL = Duration.ofMillis(500);

    private final DecisionStore store;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    private final String keyPrefix;
    /** The in-process runtime of the current outage, or {@code null} while the store answers. */
    private volatile DefaultRateLimiters local;
    /** The ticker reading from which the next caller asks the store again. */
    private final AtomicLong retryAt = new AtomicLong();
    /** The store's members when it last answered, or -1 if it never did (or cannot know). */
    private volatile int membersWhenAnswered = -1;

    LocalFallback(DecisionStore store, Ticker ticker, ScheduledExecutorService scheduler, String keyPrefix) {
        this.store = store;
        this.ticker = ticker;
        this.scheduler = scheduler;
        this.keyPrefix = keyPrefix;
    }

    /**
     * Checks, when a limiter is created, that its local share can be known.
     *
     * @throws IllegalArgumentException when the failure mode is {@code LOCAL}, no replicas are configured and the
     *     store cannot count its replicas
     */
    void check(String name, LimitSpec spec, LimiterOptions options) {
        if (options.failureMode() != FailureMode.LOCAL) {
            return;
        }
        if (options.fallbackReplicas().isEmpty() && store.members() < 0) {
            throw new IllegalArgumentException("limiter '" + name + "' has failure mode LOCAL but no fallback replicas,"
                    + " and its store (" + store + ") cannot see how many replicas share it: set fallbackReplicas"
                    + " (LimiterOptions; in settings, the policy's fallback-replicas) to the number of application"
                    + " replicas");
        }
    }

    /**
     * For a limiter with failure mode {@code LOCAL}: true if it decides locally now, without asking the store.
     * Once the retry interval has passed, one caller is told to ask the store.
     */
    boolean skipsStore() {
        if (local == null) {
            return false;
        }
        long now = ticker.read();
        long at = retryAt.get();
        return now - at < 0 || !retryAt.compareAndSet(at, now + intervalNanos());
    }

    /** The store answered a limiter with failure mode {@code LOCAL}: remember its members, end an outage. */
    void answered() {
        int members = store.members();
        if (members > 0 && members != membersWhenAnswered) {
            membersWhenAnswered = members;
        }
        if (local != null) {
            synchronized (this) {
                DefaultRateLimiters outage = local;
                local = null;
                if (outage != null) {
                    outage.close(); // the scheduler is this runtime's: only the in-process state goes
                }
            }
        }
    }

    /** The store gave no verdict: the outage starts, or goes on, for another retry interval. */
    void failed() {
        retryAt.set(ticker.read() + intervalNanos());
        localRuntime();
    }

    /** Whether the store is away now (for tests and statistics). */
    boolean isAway() {
        return local != null;
    }

    /** How many replicas a share divides by for {@code options}; 0 when none is known. */
    int replicas(LimiterOptions options) {
        return Math.max(options.fallbackReplicas().orElse(0), membersWhenAnswered);
    }

    /** One decision of {@code limiter} on its local share; the lease is degraded and local. */
    Lease decide(DefaultRateLimiter limiter, long permits) {
        DefaultRateLimiters runtime = localRuntime();
        int replicas = replicas(limiter.options());
        DefaultRateLimiter.LocalTwin twin = limiter.localTwin();
        if (twin == null || twin.runtime() != runtime || twin.replicas() != replicas) {
            LimitSpec share = replicas > 0 ? LocalShare.of(limiter.spec(), replicas) : null;
            DefaultRateLimiter decides = share == null ? null : new DefaultRateLimiter(runtime, limiter.name(),
                    limiter.key(), share, twinOptions(limiter.options()),
                    new Stats(limiter.name(), List.of(), ticker), null);
            twin = new DefaultRateLimiter.LocalTwin(runtime, replicas, decides);
            limiter.localTwin(twin);
        }
        DefaultRateLimiter decides = twin.limiter();
        Lease lease = decides == null || permits > decides.spec().limit()
                ? Lease.refused(0, decides == null ? 0 : decides.spec().limit(), Optional.empty(), Duration.ZERO)
                : decides.tryAcquire(permits);
        return new LocalFallbackLease(lease);
    }

    /** The limiter's options for the in-process store: no listeners (the limiter reports), no failure mode of its own. */
    private static LimiterOptions twinOptions(LimiterOptions options) {
        return options.toBuilder().failureMode(FailureMode.THROW).listeners(List.of()).queueLimit(0).build();
    }

    private DefaultRateLimiters localRuntime() {
        DefaultRateLimiters runtime = local;
        if (runtime != null) {
            return runtime;
        }
        synchronized (this) {
            if (local == null) {
                InstantSource clock = ticker == Ticker.system() ? InstantSource.system()
                        : () -> Instant.ofEpochMilli(Math.floorDiv(ticker.read(), 1_000_000L));
                local = (DefaultRateLimiters) LocalRateLimiters.create(clock, keyPrefix,
                        new RuntimeSettings(ticker, scheduler), Capacity.defaults());
            }
            return local;
        }
    }

    private static long intervalNanos() {
        return TimeUnit.MILLISECONDS.toNanos(RETRY_INTERVAL.toMillis());
    }
}
