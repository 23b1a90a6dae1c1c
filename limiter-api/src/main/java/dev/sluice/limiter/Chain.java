package dev.sluice.limiter;

import dev.sluice.limiter.runtime.Waits;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Limits on different keys taken in order, all or nothing ({@link RateLimiters#chain}): each link is asked
 * in turn, and when one refuses (or throws), what the earlier links granted is {@linkplain Lease#refund()
 * refunded} before the caller hears back. A chain owns none of its links.
 */
final class Chain {
    private static final System.Logger LOG = System.getLogger(Chain.class.getName());

    /** One link as a chain asks it: a limiter, or a partitioned limiter bound to the caller's partition. */
    interface Link {
        String name();

        long limit();

        Lease tryAcquire(long permits);

        CompletableFuture<Lease> acquireAsync(long permits);
    }

    private final String name;
    /** The end of a link's name in a message, once: a check runs on every request. */
    private final String ofChain;
    private final LimiterStatistics.Recorder recorder = new LimiterStatistics.Recorder();
    private volatile boolean closed;

    Chain(List<String> names) {
        this.name = "chain(" + String.join(", ", names) + ")";
        this.ofChain = "' of " + name;
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
        for (Link link : links) {
            Checks.checkPermits(permits, link.limit(), "link '", link.name(), ofChain);
        }
    }

    private Lease record(Lease lease) {
        recorder.record(lease.isDegraded() ? DecisionResult.DEGRADED
                : lease.isAcquired() ? DecisionResult.GRANTED : DecisionResult.REFUSED,
                lease.isDegraded() ? -1 : lease.remaining());
        return lease;
    }

    // ---- one decision ----

    Lease tryAcquire(List<Link> links, long permits) {
        checkPermits(links, permits);
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
        List<Lease> taken = new ArrayList<>(links.size());
        for (Link link : links) {
            Lease lease;
            try {
                lease = link.tryAcquire(permits);
            } catch (RuntimeException e) {
                refundAll(taken).join();
                throw e;
            }
            if (!lease.isAcquired()) {
                refundAll(taken).join();
                return record(lease);
            }
            taken.add(lease);
        }
        return record(new Granted(taken));
    }

    /** Refunds every lease; the future completes when all refunds have, and never exceptionally. */
    private CompletableFuture<Void> refundAll(List<Lease> leases) {
        if (leases.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<?>[] refunds = new CompletableFuture<?>[leases.size()];
        for (int i = 0; i < refunds.length; i++) {
            CompletableFuture<Boolean> refund;
            try {
                refund = leases.get(i).refund();
            } catch (RuntimeException e) { // a lease of the user's own making
                refund = CompletableFuture.failedFuture(e);
            }
            refunds[i] = refund.exceptionally(failure -> {
                LOG.log(Level.WARNING, "a refund by " + name + " failed; those permits stay consumed", failure);
                return false;
            });
        }
        return CompletableFuture.allOf(refunds);
    }

    // ---- asynchronous, with each link's queue ----

    CompletableFuture<Lease> acquireAsync(List<Link> links, long permits) {
        checkPermits(links, permits);
        if (closed) {
            return CompletableFuture.completedFuture(closedRefusal(links));
        }
        Run run = new Run(links, permits);
        run.ask(0);
        return run.out;
    }

    private static Lease closedRefusal(List<Link> links) {
        return Lease.refused(0, links.get(0).limit(), Optional.empty(), Duration.ZERO);
    }

    /**
     * One asynchronous acquisition: the link being asked and what earlier links granted. Cancelling
     * {@link #out} cancels the request in flight (which leaves that link's queue) and refunds the grants.
     */
    private final class Run {
        final List<Link> links;
        final long permits;
        final CompletableFuture<Lease> out = new CompletableFuture<>();
        final List<Lease> taken = new ArrayList<>();
        CompletableFuture<Lease> inFlight;

        Run(List<Link> links, long permits) {
            this.links = links;
            this.permits = permits;
            out.whenComplete((lease, failure) -> {
                if (out.isCancelled()) {
                    abandon();
                }
            });
        }

        private void abandon() {
            List<Lease> grants;
            CompletableFuture<Lease> pending;
            synchronized (this) {
                grants = new ArrayList<>(taken);
                taken.clear();
                pending = inFlight;
            }
            if (pending != null) {
                pending.cancel(false);
            }
            refundAll(grants);
        }

        void ask(int index) {
            CompletableFuture<Lease> next;
            try {
                next = links.get(index).acquireAsync(permits);
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
            synchronized (this) {
                inFlight = next;
            }
            if (out.isDone()) {
                next.cancel(false);
            }
            next.whenComplete((lease, failure) -> answered(index, lease, failure));
        }

        private void answered(int index, Lease lease, Throwable failure) {
            if (failure != null) {
                fail(Waits.unwrap(failure));
                return;
            }
            boolean late;
            synchronized (this) {
                late = out.isDone();
                if (!late && lease.isAcquired()) {
                    taken.add(lease);
                }
            }
            if (late) {
                refundAll(List.of(lease)); // the caller gave up meanwhile
                return;
            }
            if (!lease.isAcquired()) {
                refundThenComplete(lease);
            } else if (index + 1 < links.size()) {
                ask(index + 1);
            } else {
                List<Lease> grants;
                synchronized (this) {
                    grants = List.copyOf(taken);
                }
                if (!out.complete(record(new Granted(grants)))) {
                    refundAll(grants);
                }
            }
        }

        private void refundThenComplete(Lease refusal) {
            List<Lease> grants;
            synchronized (this) {
                grants = new ArrayList<>(taken);
                taken.clear();
            }
            refundAll(grants).whenComplete((v, t) -> {
                if (!out.complete(record(refusal))) {
                    refusal.close();
                }
            });
        }

        private void fail(Throwable failure) {
            List<Lease> grants;
            synchronized (this) {
                grants = new ArrayList<>(taken);
                taken.clear();
            }
            refundAll(grants).whenComplete((v, t) -> out.completeExceptionally(failure));
        }
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

        @Override
        public String toString() {
            return "Lease[granted by every link, remaining=" + remaining() + ", limit=" + limit() + ", links="
                    + leases + "]";
        }
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
                    @Override public String name() { return l.name(); }
                    @Override public long limit() { return l.spec().limit(); }
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
                @Override public String name() { return limiter.name(); }
                @Override public long limit() { return limiter.spec().limit(); }
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

        @Override public LimiterStatistics statistics() { return chain.statistics(); }
        @Override public void close() { chain.close(); }
        @Override public String toString() { return "PartitionedRateLimiter[" + chain.name() + "]"; }
    }
}
