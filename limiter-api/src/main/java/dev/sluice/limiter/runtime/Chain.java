package dev.sluice.limiter.runtime;

import dev.sluice.limiter.AllOrNothing;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.KeyState;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.Settlement;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.LimiterStatistics;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiter;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Limits on different keys taken in order, all or nothing ({@link RateLimiters#chain}): the links are asked as
 * the steps of an {@link AllOrNothing} sequence, so when one refuses (or throws), what the earlier links granted
 * is {@linkplain Lease#refund() refunded} before the caller hears back. A chain owns none of its links.
 */
public final class Chain {
    /** For {@link RateLimiters#chain(RateLimiter...)}: {@code links} already checked. */
    public static RateLimiter of(List<RateLimiter> links) {
        return new OfLimiters(links);
    }

    /** For {@link RateLimiters#chain(PartitionedRateLimiter...)}: {@code links} already checked. */
    public static <P> PartitionedRateLimiter<P> ofPartitioned(List<PartitionedRateLimiter<? super P>> links) {
        return new OfPartitioned<>(links);
    }

    /** One link as a chain asks it: a limiter, or a partitioned limiter bound to the caller's partition. */
    interface Link {
        LimitSpec spec();

        Lease tryAcquire(long permits);

        CompletableFuture<Lease> acquireAsync(long permits);
    }

    private final String name;
    /** Each link's name in a message, put together once: a check runs on every request. */
    private final List<String> linkNames;
    private final LimiterStatistics.Recorder recorder = new LimiterStatistics.Recorder();
    private volatile boolean closed;

    Chain(List<String> names) {
        this.name = "chain(" + String.join(", ", names) + ")";
        this.linkNames = names.stream().map(n -> n + "' of '" + name).toList();
    }

    /** The links in order, checked: at least two, none null. */
    static <T> List<T> checkLinks(List<T> links) {
        if (links.size() < 2) {
            throw new IllegalArgumentException("a chain needs at least 2 links, got " + links.size());
        }
        for (int i = 0; i < links.size(); i++) {
            if (links.get(i) == null) {
                throw new NullPointerException("link " + i + " of the chain is null");
            }
        }
        return List.copyOf(links);
    }

    String name() {
        return name;
    }

    LimiterStatistics statistics() {
        return recorder.snapshot(0);
    }

    void close() {
        closed = true;
    }

    private void checkPermits(List<Link> links, long permits) {
        for (int i = 0; i < links.size(); i++) {
            links.get(i).spec().checkPermits(permits, linkNames.get(i));
        }
    }

    private Lease record(Lease lease) {
        recorder.record(lease.isDegraded() ? DecisionResult.DEGRADED
                : lease.isAcquired() ? DecisionResult.GRANTED : DecisionResult.REFUSED,
                lease.isDegraded() ? -1 : lease.remaining());
        return lease;
    }

    /** The chain's lease for a sequence that was not stopped or was stopped by a refusal. */
    private Lease leaseOf(AllOrNothing.Result result) {
        return record(result.stopped() ? result.last().lease() : new Granted(result.leases()));
    }

    // ---- one decision ----

    Lease tryAcquire(List<Link> links, long permits) {
        checkPermits(links, permits);
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        List<AllOrNothing.Step> steps = new ArrayList<>(links.size());
        for (Link link : links) {
            steps.add(() -> CompletableFuture.completedFuture(link.tryAcquire(permits)));
        }
        // Every step has answered on this thread; only the refunds of a stopped chain may still be on their way.
        AllOrNothing.Result result = AllOrNothing.acquire(name, steps).join();
        Throwable failure = result.stopped() ? result.last().failure() : null;
        if (failure instanceof RuntimeException e) {
            throw e;
        } else if (failure instanceof Error e) {
            throw e;
        } else if (failure != null) {
            throw new CompletionException(failure);
        }
        return leaseOf(result);
    }

    // ---- asynchronous, with each link's queue ----

    CompletableFuture<Lease> acquireAsync(List<Link> links, long permits) {
        checkPermits(links, permits);
        if (closed) {
            return CompletableFuture.completedFuture(closedRefusal(links));
        }
        List<AllOrNothing.Step> steps = new ArrayList<>(links.size());
        for (Link link : links) {
            steps.add(() -> link.acquireAsync(permits));
        }
        return AllOrNothing.acquire(name, steps, result -> result.stopped() && result.last().failure() != null
                ? CompletableFuture.failedFuture(result.last().failure())
                : CompletableFuture.completedFuture(leaseOf(result)));
    }

    private static Lease closedRefusal(List<Link> links) {
        return Lease.refused(0, links.get(0).spec().limit(), Optional.empty(), Duration.ZERO);
    }

    Lease acquire(List<Link> links, long permits, Duration maxWait) throws InterruptedException {
        checkPermits(links, permits);
        if (maxWait == null || maxWait.isZero() || maxWait.isNegative()) {
            return tryAcquire(links, permits);
        }
        return Waits.await(acquireAsync(links, permits), Ticker.toNanosSaturated(maxWait),
                () -> record(closedRefusal(links)), name);
    }

    /**
     * Every link's grant as one lease: the smallest remaining (with that link's limit), the longest reset;
     * degraded if any link's failure mode decided; closing or refunding it does so for every link.
     */
    private static final class Granted implements Lease {
        private final List<Lease> leases;
        private final Lease tightest;

        Granted(List<Lease> leases) {
            this.leases = leases;
            Lease min = leases.get(0);
            for (Lease l : leases) {
                if (l.remaining() < min.remaining()) {
                    min = l;
                }
            }
            this.tightest = min;
        }

        @Override public boolean isAcquired() { return true; }
        @Override public long remaining() { return tightest.remaining(); }
        @Override public long limit() { return tightest.limit(); }
        @Override public Optional<Duration> retryAfter() { return Optional.empty(); }

        @Override
        public Duration resetAfter() {
            Duration longest = Duration.ZERO;
            for (Lease l : leases) {
                if (l.resetAfter().compareTo(longest) > 0) {
                    longest = l.resetAfter();
                }
            }
            return longest;
        }

        @Override
        public boolean isDegraded() {
            return leases.stream().anyMatch(Lease::isDegraded);
        }

        @Override
        public boolean isLocalFallback() {
            return leases.stream().anyMatch(Lease::isLocalFallback);
        }

        @Override
        public OptionalLong fencingToken() {
            for (Lease l : leases) {
                if (l.fencingToken().isPresent()) {
                    return l.fencingToken();
                }
            }
            return OptionalLong.empty();
        }

        @Override
        public void close() {
            leases.forEach(Lease::close);
        }

        @Override
        public CompletableFuture<Boolean> refund() {
            List<CompletableFuture<Boolean>> refunds = new ArrayList<>(leases.size());
            for (Lease l : leases) {
                refunds.add(l.refund().exceptionally(t -> false));
            }
            return CompletableFuture.allOf(refunds.toArray(CompletableFuture[]::new))
                    .thenApply(v -> refunds.stream().anyMatch(CompletableFuture::join));
        }

        /**
         * Every link settled with the same cost: settled when every link was; otherwise the first link's other
         * status, in link order; the largest debt among the links.
         */
        @Override
        public CompletableFuture<Settlement> settle(long cost) {
            for (Lease l : leases) {
                Settlement.checkCost(cost, null);
            }
            List<CompletableFuture<Settlement>> settled = new ArrayList<>(leases.size());
            for (Lease l : leases) {
                settled.add(l.settle(cost));
            }
            return CompletableFuture.allOf(settled.toArray(CompletableFuture[]::new)).thenApply(v -> {
                Settlement.Status status = Settlement.Status.SETTLED;
                long reserved = 0;
                long debt = 0;
                for (CompletableFuture<Settlement> f : settled) {
                    Settlement s = f.join();
                    status = status == Settlement.Status.SETTLED ? s.status() : status;
                    reserved = Math.max(reserved, s.reserved());
                    debt = Math.max(debt, s.debt());
                }
                return new Settlement(status, reserved, cost, debt);
            });
        }

        @Override
        public String toString() {
            return "Lease[granted by every link, remaining=" + remaining() + ", limit=" + limit() + ", links="
                    + leases + "]";
        }
    }

    /** What inspecting or resetting a chain throws: its state is its links'. */
    UnsupportedOperationException noStateOfItsOwn() {
        return new UnsupportedOperationException("chain '" + name() + "' holds no state of its own: inspect or"
                + " reset each of its limiters");
    }

    // ---- the two public shapes ----

    /** A chain of limiters. */
    static final class OfLimiters implements RateLimiter {
        private final List<RateLimiter> limiters;
        private final List<Link> links;
        private final Chain chain;

        OfLimiters(List<RateLimiter> limiters) {
            this.limiters = checkLinks(limiters);
            List<Link> bound = new ArrayList<>();
            for (RateLimiter l : this.limiters) {
                bound.add(new Link() {
                    @Override public LimitSpec spec() { return l.spec(); }
                    @Override public Lease tryAcquire(long permits) { return l.tryAcquire(permits); }
                    @Override public CompletableFuture<Lease> acquireAsync(long permits) { return l.acquireAsync(permits); }
                });
            }
            this.links = List.copyOf(bound);
            this.chain = new Chain(this.limiters.stream().map(RateLimiter::name).toList());
        }

        @Override public String name() { return chain.name(); }
        @Override public String key() { return limiters.get(0).key(); }
        @Override public LimitSpec spec() { return limiters.get(0).spec(); }
        @Override public LimiterOptions options() { return limiters.get(0).options(); }
        @Override public Lease tryAcquire(long permits) { return chain.tryAcquire(links, permits); }
        @Override public CompletableFuture<Lease> acquireAsync(long permits) { return chain.acquireAsync(links, permits); }

        @Override
        public Lease acquire(long permits, Duration maxWait) throws InterruptedException {
            return chain.acquire(links, permits, maxWait);
        }

        @Override public KeyState inspect() { throw chain.noStateOfItsOwn(); }
        @Override public KeyState reset() { throw chain.noStateOfItsOwn(); }
        @Override public KeyState reset(long remaining) { throw chain.noStateOfItsOwn(); }
        @Override public LimiterStatistics statistics() { return chain.statistics(); }
        @Override public void close() { chain.close(); }
        @Override public String toString() { return "RateLimiter[" + chain.name() + "]"; }
    }

    /** A chain of partitioned limiters, every link asked for the caller's partition. */
    static final class OfPartitioned<P> implements PartitionedRateLimiter<P> {
        private final List<PartitionedRateLimiter<? super P>> limiters;
        private final Chain chain;

        OfPartitioned(List<PartitionedRateLimiter<? super P>> limiters) {
            this.limiters = checkLinks(limiters);
            this.chain = new Chain(this.limiters.stream().map(PartitionedRateLimiter::name).toList());
        }

        private List<Link> linksFor(P partition) {
            Objects.requireNonNull(partition, "partition");
            List<Link> links = new ArrayList<>(limiters.size());
            for (PartitionedRateLimiter<? super P> l : limiters) {
                links.add(bind(l, partition));
            }
            return links;
        }

        private static <Q> Link bind(PartitionedRateLimiter<Q> limiter, Q partition) {
            return new Link() {
                // A planned link checks the permits against the partition's plan; an unknown, refused plan by its own rule.
                @Override public LimitSpec spec() { return limiter.specOf(partition).orElse(limiter.spec()); }
                @Override public Lease tryAcquire(long permits) { return limiter.tryAcquire(partition, permits); }

                @Override
                public CompletableFuture<Lease> acquireAsync(long permits) {
                    return limiter.acquireAsync(partition, permits);
                }
            };
        }

        @Override public String name() { return chain.name(); }
        @Override public LimitSpec spec() { return limiters.get(0).spec(); }
        @Override public LimiterOptions options() { return limiters.get(0).options(); }

        @Override
        public String keyOf(P partition) {
            return keyOf(limiters.get(0), partition);
        }

        private static <Q> String keyOf(PartitionedRateLimiter<Q> limiter, Q partition) {
            return limiter.keyOf(partition);
        }

        @Override public Lease tryAcquire(P partition, long permits) { return chain.tryAcquire(linksFor(partition), permits); }

        @Override
        public CompletableFuture<Lease> acquireAsync(P partition, long permits) {
            return chain.acquireAsync(linksFor(partition), permits);
        }

        @Override
        public Lease acquire(P partition, long permits, Duration maxWait) throws InterruptedException {
            return chain.acquire(linksFor(partition), permits, maxWait);
        }

        @Override public KeyState inspect(P partition) { throw chain.noStateOfItsOwn(); }
        @Override public KeyState reset(P partition) { throw chain.noStateOfItsOwn(); }
        @Override public KeyState reset(P partition, long remaining) { throw chain.noStateOfItsOwn(); }
        @Override public LimiterStatistics statistics() { return chain.statistics(); }
        @Override public void close() { chain.close(); }
        @Override public String toString() { return "PartitionedRateLimiter[" + chain.name() + "]"; }
    }
}
