package dev.sluice.http;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decides HTTP requests by a {@link RateLimitFilterConfig}, for any server; a server's adapter (the servlet
 * filter, the Spring WebFlux filter) only turns its request into an {@link HttpRequestView} and writes the
 * {@link HttpDecision} back, so every server answers alike. Thread-safe.
 *
 * <p>For each request, every {@link Route} that matches its method and path names policies; each
 * {@link RateLimitPolicy} applies at most once, with the cost of the most specific route that names it (see
 * {@link RateLimitFilterConfig}). A request no route matches is not limited and touches no store. Each
 * policy identifies the client by its own identity or the configuration's
 * ({@link RateLimitFilterConfig#identityResolver()}, by default the client address), hashed with
 * {@link Keys#sha256(String)}, and takes the cost from that client's budget:
 * <ul>
 *   <li>all granted: the request proceeds with {@code RateLimit-Policy} and {@code RateLimit} headers
 *       listing every policy;
 *   <li>any enforced policy refused: {@code 429} with {@code Retry-After} (the longest wait among the
 *       refusing policies, whole seconds, rounded up, at least 1) and a quota-exceeded problem body naming
 *       them;
 *   <li>no decision from the store: the policy's failure mode decides ({@code ALLOW} by default here),
 *       marked {@code RateLimit-Degraded: true}; under {@code THROW} or {@code DENY}, {@code 503} with a
 *       temporary-reduced-capacity problem body, since that refusal is not about the client's quota.
 * </ul>
 * A request's policies are decided one after another, each on its own key, and a refusal by a later policy
 * refunds what the earlier ones granted before the 429 goes out, so a refused request costs no policy
 * anything. Once an enforced policy has refused, the later ones are only asked, with a probe that takes
 * nothing, which still shows their state. Putting the narrowest policies (per client) before the broad ones
 * (one budget for everyone) saves hops: a client over its own limit is refused after one.
 *
 * <p>A policy in shadow mode ({@link RateLimitPolicy#withShadow(boolean)}, or every policy with
 * {@link RateLimitFilterConfig.Builder#shadow(boolean)}) is decided and charged as if enforced, answers the
 * same headers, but never refuses; its would-be refusals are counted apart ({@link #statistics()}, and
 * {@link DecisionResult#SHADOW_REFUSED} to its options' listeners, so {@code SluiceMetrics} tags them
 * {@code result=shadow_refused}). It does not change what the other policies are charged.
 *
 * <p>A concurrency policy's lease is in {@link HttpDecision#heldLeases()}: the adapter holds it while the
 * request runs and releases it when the request ends, however it ends.
 *
 * <p>{@link #decide} asks the store with {@code tryAcquire} and returns when it has answered;
 * {@link #decideAsync} asks with {@code acquireAsync}, so no thread waits for the store (a policy with a
 * {@code queue-limit} may then wait in the local queue).
 *
 * <p>It creates one partitioned limiter per policy at once; {@link #close()} closes them, never the
 * {@link RateLimiters}.
 */
public final class HttpRateLimiter implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(HttpRateLimiter.class.getName());

    private final RateLimitFilterConfig config;
    private final Map<String, PartitionedRateLimiter<String>> limiters;
    private final Map<String, Counters> counters;

    /**
     * A rate limiter that enforces {@code config} on {@code limiters}.
     *
     * @throws IllegalArgumentException if a policy is not accepted by {@code limiters}
     */
    public HttpRateLimiter(RateLimiters limiters, RateLimitFilterConfig config) {
        Objects.requireNonNull(limiters, "limiters");
        this.config = Objects.requireNonNull(config, "config");
        Map<String, PartitionedRateLimiter<String>> created = new LinkedHashMap<>();
        Map<String, Counters> counted = new LinkedHashMap<>();
        try {
            for (RateLimitPolicy p : config.policies().values()) {
                LimiterOptions options = config.shadow() || p.shadow() ? shadowed(p.options()) : p.options();
                created.put(p.name(), limiters.partitioned(p.name(), p.spec(), options));
                counted.put(p.name(), new Counters());
            }
        } catch (RuntimeException e) {
            created.values().forEach(PartitionedRateLimiter::close);
            throw e;
        }
        this.limiters = Collections.unmodifiableMap(created);
        this.counters = Collections.unmodifiableMap(counted);
    }

    /**
     * The options of a shadow policy: the same, with each listener told {@link DecisionResult#SHADOW_REFUSED}
     * where the limiter refused, since the filter lets every such request through.
     */
    private static LimiterOptions shadowed(LimiterOptions options) {
        if (options.listeners().isEmpty()) {
            return options;
        }
        LimiterOptions.Builder b = LimiterOptions.builder().queueLimit(options.queueLimit())
                .queueOrder(options.queueOrder()).failureMode(options.failureMode()).maxRetries(options.maxRetries())
                .decisionTimeout(options.decisionTimeout()).pollInterval(options.pollInterval())
                .durability(options.durability());
        if (options.renewInterval() != null) {
            b.renewInterval(options.renewInterval());
        }
        for (DecisionListener listener : options.listeners()) {
            b.listener(new DecisionListener() {
                @Override
                public void onDecision(String limiter, DecisionResult result, long durationNanos) {
                    listener.onDecision(limiter, result == DecisionResult.REFUSED ? DecisionResult.SHADOW_REFUSED
                            : result, durationNanos);
                }

                @Override
                public void onQueueChanged(String limiter, long queuedPermits) {
                    listener.onQueueChanged(limiter, queuedPermits);
                }
            });
        }
        return b.build();
    }

    /** The configuration in force. */
    public RateLimitFilterConfig config() {
        return config;
    }

    /**
     * The limiter of a policy, or null if there is no such policy. Partitions are the hex SHA-256
     * ({@link Keys#sha256(String)}) of client identities; whoever takes permits from it directly shares
     * the policy's budgets with the HTTP requests.
     */
    public PartitionedRateLimiter<String> limiter(String policy) {
        return limiters.get(policy);
    }

    /**
     * What this rate limiter made of each policy's decisions since it started, by policy name in
     * configuration order (see {@link PolicyStatistics}). The limiters' own
     * {@link PartitionedRateLimiter#statistics()} count a shadow policy's refusals as refusals: the limiter
     * did refuse, and only the filter let the request through.
     */
    public Map<String, PolicyStatistics> statistics() {
        Map<String, PolicyStatistics> snapshot = new LinkedHashMap<>();
        counters.forEach((name, c) -> snapshot.put(name, c.snapshot()));
        return Collections.unmodifiableMap(snapshot);
    }

    /** Decides a request with {@code tryAcquire}; returns once the store (or the failure mode) has answered. */
    public HttpDecision decide(HttpRequestView request) {
        return decide(request, HttpRateLimiter::tryAcquire).join();
    }

    /**
     * Decides a request with {@code acquireAsync}: no thread waits for the store. The future completes on
     * the thread that completes the store's answer (for Hazelcast, Sluice's callback executor), or at once.
     */
    public CompletableFuture<HttpDecision> decideAsync(HttpRequestView request) {
        return decide(request, HttpRateLimiter::acquireAsync);
    }

    /**
     * Decides {@code policies}, in order and one permit each, for a request that a server routed itself (a
     * gateway's route, say) instead of by this configuration's routes: the same identities, headers, answers
     * and shadow mode as {@link #decideAsync(HttpRequestView)}.
     *
     * @throws IllegalArgumentException if a policy is not defined
     */
    public CompletableFuture<HttpDecision> decideAsync(HttpRequestView request, List<String> policies) {
        Objects.requireNonNull(request, "request");
        List<RateLimitFilterConfig.Applied> applied = new ArrayList<>(policies.size());
        for (String name : policies) {
            RateLimitPolicy p = config.policies().get(name);
            if (p == null) {
                throw new IllegalArgumentException("no policy '" + name + "'; defined policies: "
                        + config.policies().keySet());
            }
            applied.add(new RateLimitFilterConfig.Applied(p, 1));
        }
        return decide(request, applied, HttpRateLimiter::acquireAsync);
    }

    /**
     * Who the request is by this configuration's rules (its identity resolver, else the client address with
     * the trusted proxies' forwarding), as {@code kind:value}, before hashing: the key the filters count under.
     */
    public String identity(HttpRequestView request) {
        return identify(null, Objects.requireNonNull(request, "request"));
    }

    private CompletableFuture<HttpDecision> decide(HttpRequestView request, Acquisition acquisition) {
        Objects.requireNonNull(request, "request");
        List<RateLimitFilterConfig.Applied> applied =
                config.match(RequestMethods.of(request, config.strictMatching(), config.overridesMatter()),
                        request.getPath());
        if (applied.isEmpty()) {
            return CompletableFuture.completedFuture(HttpDecision.NOT_LIMITED);
        }
        return decide(request, applied, acquisition);
    }

    /** Decides {@code applied} for {@code request}: the answer, or 400 for an identity that cannot be a key. */
    private CompletableFuture<HttpDecision> decide(HttpRequestView request, List<RateLimitFilterConfig.Applied> applied,
            Acquisition acquisition) {
        List<Decision> decisions = new ArrayList<>(applied.size());
        return decidePolicies(request, applied, acquisition, decisions).handle((d, failure) -> failure)
                .thenCompose(failure -> {
                    if (failure == null) {
                        return answer(decisions);
                    }
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    if (cause instanceof MalformedIdentity malformed) {
                        // A usage error, not a store failure: no failure mode applies, and what was taken goes back.
                        return refundAll(decisions).thenApply(refunded -> {
                            Responses.Answer answer = new Responses.Answer();
                            Responses.badRequest(answer, malformed.getMessage());
                            return HttpDecision.answer(answer);
                        });
                    }
                    return CompletableFuture.failedFuture(cause);
                });
    }

    /** An identity that cannot become a key (not well-formed UTF-16): the request is answered 400. */
    private static final class MalformedIdentity extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MalformedIdentity(String policy, IllegalArgumentException cause) {
            super("The client identity of policy '" + policy + "' is not well-formed text: " + cause.getMessage(),
                    cause, false, false);
        }
    }

    /**
     * Decides a route's policies in order; this is where the policies of a request are decided, for every
     * server. Once an enforced policy has refused or could not decide, the rest are only probed (0
     * permits), so the refused request takes nothing from them.
     */
    private CompletableFuture<List<Decision>> decidePolicies(HttpRequestView request,
            List<RateLimitFilterConfig.Applied> applied, Acquisition acquisition, List<Decision> decisions) {
        CompletableFuture<Boolean> stopped = CompletableFuture.completedFuture(false);
        for (RateLimitFilterConfig.Applied a : applied) {
            stopped = stopped.thenCompose(stop -> {
                RateLimitPolicy policy = a.policy();
                boolean shadow = config.shadow() || policy.shadow();
                String partition;
                try {
                    partition = Keys.sha256(identify(policy, request));
                } catch (IllegalArgumentException malformed) {
                    throw new MalformedIdentity(policy.name(), malformed);
                }
                return acquisition.acquire(limiters.get(policy.name()), partition, stop ? 0 : a.cost())
                        .handle((lease, failure) -> {
                            Decision d = decision(policy, partition, lease, failure, stop, shadow, stop ? 0 : a.cost());
                            counters.get(policy.name()).count(d.outcome());
                            decisions.add(d);
                            return stop || d.refuses() || d.unavailable();
                        });
            });
        }
        return stopped.thenApply(s -> decisions);
    }

    private static Decision decision(RateLimitPolicy policy, String partition, Lease lease, Throwable failure,
            boolean stopped, boolean shadow, long permits) {
        if (failure != null) {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof DecisionUnavailableException) {
                LOG.log(Level.WARNING, "no rate-limit decision for policy ''{0}'': {1}", policy.name(),
                        cause.getMessage());
            } else {
                LOG.log(Level.ERROR, "rate-limit decision for policy '" + policy.name() + "' failed", cause);
            }
            return new Decision(policy, partition, null, Decision.Outcome.UNAVAILABLE, shadow, permits, 0);
        }
        Decision.Outcome outcome = lease.isDegraded() ? Decision.Outcome.DEGRADED
                : lease.isAcquired() ? (stopped ? Decision.Outcome.SKIPPED : Decision.Outcome.GRANTED)
                : shadow ? Decision.Outcome.SHADOW_REFUSED : Decision.Outcome.REFUSED;
        return new Decision(policy, partition, lease, outcome, shadow, permits, 0);
    }

    /**
     * The answer the filters give to a request that {@code policy} refused with {@code lease}, for a
     * refusal decided elsewhere (such as a method-level limit): 429, the policy's headers, {@code Retry-After}
     * and the same problem body; or, when the lease is degraded (the store could not decide and failure mode
     * {@code DENY} refused), 503 with the temporary-reduced-capacity body, since that refusal is not about
     * quota.
     *
     * @param partition the hex SHA-256 of the identity the permits were asked under
     * @param permits the permits that were asked for
     * @throws IllegalArgumentException if there is no such policy or the lease was granted
     */
    public HttpDecision refusal(String policy, String partition, Lease lease, long permits) {
        RateLimitPolicy p = config.policies().get(policy);
        if (p == null) {
            throw new IllegalArgumentException("no policy '" + policy + "'; defined policies: "
                    + config.policies().keySet());
        }
        if (lease.isAcquired()) {
            throw new IllegalArgumentException("lease of policy '" + policy + "' was granted, not refused");
        }
        Responses.Answer answer = new Responses.Answer();
        if (lease.isDegraded()) {
            Responses.unavailable(answer, List.of(new Decision(p, partition, lease, Decision.Outcome.DEGRADED, false,
                    permits, 0)), config);
        } else {
            Responses.tooManyRequests(answer, List.of(new Decision(p, partition, lease, Decision.Outcome.REFUSED,
                    false, permits, 0)), config);
        }
        return HttpDecision.answer(answer);
    }

    /** The answer to a request whose policies were decided; a refusal's once the granted policies are refunded. */
    private CompletableFuture<HttpDecision> answer(List<Decision> decisions) {
        Responses.Answer answer = new Responses.Answer();
        boolean refused = decisions.stream().anyMatch(Decision::refuses);
        if (refused || decisions.stream().anyMatch(Decision::unavailable)) {
            return refundAll(decisions).thenApply(after -> {
                if (refused) {
                    Responses.tooManyRequests(answer, after, config);
                } else {
                    Responses.unavailable(answer, after, config);
                }
                return HttpDecision.answer(answer);
            });
        }
        Responses.rateLimitHeaders(answer, decisions, config);
        List<Lease> held = new ArrayList<>();
        for (Decision d : decisions) {
            if (d.policy().spec() instanceof LimitSpec.Concurrency && d.lease() != null && d.lease().isAcquired()
                    && !d.lease().isDegraded()) {
                held.add(d.lease());
            }
        }
        return CompletableFuture.completedFuture(HttpDecision.proceed(answer, held));
    }

    /**
     * Gives back what the policies before the refusing one granted (a rate's permits, a concurrency lease), as
     * a chain does, before the client hears back: a refused request costs no policy anything. Completes within
     * the slowest policy's decision timeout (no thread waits for it in {@link #decideAsync}) with the decisions
     * as they stand after it, so a refunded policy's header shows its permits back; a refund that fails leaves
     * its permits spent (stricter only), and its header as it was.
     */
    private static CompletableFuture<List<Decision>> refundAll(List<Decision> decisions) {
        List<CompletableFuture<Decision>> refunds = new ArrayList<>(decisions.size());
        for (Decision d : decisions) {
            if (d.lease() == null) {
                refunds.add(CompletableFuture.completedFuture(d));
                continue;
            }
            refunds.add(d.lease().refund().handle((gaveBack, failure) -> {
                if (failure != null) {
                    LOG.log(Level.WARNING, "a refund failed; those permits stay spent: {0}", failure.toString());
                    return d;
                }
                return Boolean.TRUE.equals(gaveBack) ? d.refunded(d.permits()) : d;
            }));
        }
        return CompletableFuture.allOf(refunds.toArray(CompletableFuture[]::new))
                .thenApply(done -> refunds.stream().map(CompletableFuture::join).toList());
    }

    /**
     * The identity a policy counts a request under: its own resolver or the configuration's, else (null, or
     * a resolver that threw) the client address by the configuration's rules, which always answers.
     */
    private String identify(RateLimitPolicy policy, HttpRequestView request) {
        ClientIdentityResolver resolver = policy != null && policy.identity() != null ? policy.identity()
                : config.identityResolver();
        String id;
        try {
            id = resolver.resolve(request);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "identity of policy '" + (policy == null ? "" : policy.name())
                    + "' failed; using the client address", e);
            id = null;
        }
        return id != null ? id : config.addressResolver().resolve(request);
    }

    /** Closes every limiter this rate limiter created; the {@link RateLimiters} stay open. */
    @Override
    public void close() {
        limiters.values().forEach(PartitionedRateLimiter::close);
    }

    /** How permits are asked for: failures, thrown or not, come back as a failed future. */
    @FunctionalInterface
    private interface Acquisition {
        CompletableFuture<Lease> acquire(PartitionedRateLimiter<String> limiter, String partition, long permits);
    }

    private static CompletableFuture<Lease> tryAcquire(PartitionedRateLimiter<String> limiter, String partition,
            long permits) {
        try {
            return CompletableFuture.completedFuture(limiter.tryAcquire(partition, permits));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static CompletableFuture<Lease> acquireAsync(PartitionedRateLimiter<String> limiter, String partition,
            long permits) {
        try {
            return limiter.acquireAsync(partition, permits);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** One policy's counts. */
    private static final class Counters {
        private final LongAdder[] byOutcome = new LongAdder[Decision.Outcome.values().length];

        Counters() {
            for (int i = 0; i < byOutcome.length; i++) {
                byOutcome[i] = new LongAdder();
            }
        }

        void count(Decision.Outcome outcome) {
            byOutcome[outcome.ordinal()].increment();
        }

        PolicyStatistics snapshot() {
            return new PolicyStatistics(sum(Decision.Outcome.GRANTED), sum(Decision.Outcome.REFUSED),
                    sum(Decision.Outcome.SHADOW_REFUSED), sum(Decision.Outcome.DEGRADED),
                    sum(Decision.Outcome.UNAVAILABLE), sum(Decision.Outcome.SKIPPED));
        }

        private long sum(Decision.Outcome outcome) {
            return byOutcome[outcome.ordinal()].sum();
        }
    }
}
