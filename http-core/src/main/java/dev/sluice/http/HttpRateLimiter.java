package dev.sluice.http;

import dev.sluice.limiter.AllOrNothing;
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
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decides HTTP requests by a {@link HttpRateLimiterConfig}, for any server; a server's adapter (the servlet
 * filter, the Spring WebFlux filter) only turns its request into an {@link HttpRequestView} and writes the
 * {@link HttpDecision} back, so every server answers alike. Thread-safe.
 *
 * <p>For each request, every {@link Route} that matches its method and path names policies; each
 * {@link RateLimitPolicy} applies at most once, with the cost of the most specific route that names it (see
 * {@link HttpRateLimiterConfig}). A request no route matches is not limited and touches no store. Each
 * policy identifies the client by its own identity or the configuration's
 * ({@link HttpRateLimiterConfig#identityResolver()}, by default the client address), hashed with
 * {@link #partition(String)} (keyed with the identity secret when there is one), and takes the cost from that
 * client's budget:
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
 * {@link HttpRateLimiterConfig.Builder#shadow(boolean)}) is decided and charged as if enforced, answers the
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

    private final HttpRateLimiterConfig config;
    private final Map<String, PartitionedRateLimiter<String>> limiters;
    private final Map<String, Counters> counters;
    /** The policies this instance decides by route; null for all of them. */
    private final java.util.function.Predicate<String> routed;

    /**
     * A rate limiter that enforces {@code config} on {@code limiters}.
     *
     * @throws IllegalArgumentException if a policy is not accepted by {@code limiters}
     */
    public HttpRateLimiter(RateLimiters limiters, HttpRateLimiterConfig config) {
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
        this.routed = null;
        try {
            checkIdentityKeys(limiters, config);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Keeps the secret's fingerprint in the store, or compares it with the one there: replicas that key
     * identities differently would count each client under a key per secret, a budget each. Warns when a shared
     * store holds identities under plain SHA-256.
     */
    private static void checkIdentityKeys(RateLimiters limiters, HttpRateLimiterConfig config) {
        if (config.policies().isEmpty()) {
            return;
        }
        IdentityKeys keys = config.identityKeys();
        long[] mine = keys.fingerprint();
        long[] held;
        try {
            held = limiters.sharedValue(IdentityKeys.FINGERPRINT_NAME, mine);
        } catch (RuntimeException unreachable) {
            // Starting while the store is down is allowed (the failure modes answer until it is back): say so.
            LOG.log(Level.WARNING, "could not compare this replica's identity-secret fingerprint with the store's,"
                    + " which did not answer (" + unreachable + "); replicas keyed with different secrets would"
                    + " each give every client a budget");
            return;
        }
        if (held == null) {
            return; // an in-process store, or one that cannot keep the fingerprint: no replica to compare with
        }
        if (!Arrays.equals(held, mine)) {
            throw new IllegalStateException("the replicas sharing this store key client identities differently:"
                    + " this one with identity-secret fingerprint " + IdentityKeys.shown(mine) + ", the store with "
                    + IdentityKeys.shown(held) + ", so every client would get one budget per secret. Give every"
                    + " replica the same sluice.client.identity-secret (or environment variable "
                    + IdentityKeys.ENVIRONMENT + "); to change it, stop every replica first, or delete the key '"
                    + limiters.keyPrefix() + "/" + IdentityKeys.FINGERPRINT_NAME + "' from the store");
        }
        if (!keys.keyed()) {
            LOG.log(Level.WARNING, "client identities are stored in a shared store as plain SHA-256 of their"
                    + " address or key, which anyone who can read the store can reverse by trying candidates; set"
                    + " sluice.client.identity-secret (or environment variable " + IdentityKeys.ENVIRONMENT
                    + ") to the same secret on every replica to store them under a keyed hash");
        }
    }

    private HttpRateLimiter(HttpRateLimiter whole, java.util.function.Predicate<String> routed) {
        this.config = whole.config;
        this.limiters = whole.limiters;
        this.counters = whole.counters;
        this.routed = routed;
    }

    /**
     * This rate limiter deciding by route only the policies {@code policies} accepts, sharing its limiters,
     * budgets and statistics: for a server where some policies can be decided earlier than others (ahead of an
     * authentication filter, say, and after it). {@link #decideAsync(HttpRequestView, List)} is not restricted;
     * {@link #close()} closes the shared limiters.
     */
    public HttpRateLimiter restrictedTo(java.util.function.Predicate<String> policies) {
        Objects.requireNonNull(policies, "policies");
        return new HttpRateLimiter(this, routed == null ? policies : routed.and(policies));
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
    public HttpRateLimiterConfig config() {
        return config;
    }

    /**
     * The limiter of a policy, or null if there is no such policy. Partitions are client identities as
     * {@link #partition(String)} keys them; whoever takes permits from it directly shares the policy's budgets
     * with the HTTP requests.
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
        return decide(request, PartitionedRateLimiter::acquireAsync);
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
        List<HttpRateLimiterConfig.Applied> applied = new ArrayList<>(policies.size());
        for (String name : policies) {
            RateLimitPolicy p = config.policies().get(name);
            if (p == null) {
                throw new IllegalArgumentException("no policy '" + name + "'; defined policies: "
                        + config.policies().keySet());
            }
            applied.add(new HttpRateLimiterConfig.Applied(p, 1));
        }
        return decide(request, applied, PartitionedRateLimiter::acquireAsync);
    }

    /**
     * The partition (the part of a store key after the policy) that {@code identity} is counted under, as the
     * filters count it: its hex HMAC-SHA256 under the identity secret, or without one its hex SHA-256
     * ({@link Keys#sha256(String)}).
     *
     * @throws IllegalArgumentException if {@code identity} is not well-formed UTF-16
     */
    public String partition(String identity) {
        return config.identityKeys().partition(Objects.requireNonNull(identity, "identity"));
    }

    /**
     * Whether identities are stored under a keyed hash (see {@link HttpRateLimiterConfig#identitiesKeyed()}):
     * without one, anyone who can read the store can tell which client a key counts.
     */
    public boolean identitiesKeyed() {
        return config.identitiesKeyed();
    }

    /**
     * The names of the policies this configuration's routes apply to {@code request}, in the order they are
     * decided; empty when no route matches. For a server that also routes by itself (a gateway) to tell which
     * of its own policies the routes already charged.
     */
    public List<String> routedPolicies(HttpRequestView request) {
        Objects.requireNonNull(request, "request");
        List<String> names = new ArrayList<>();
        for (HttpRateLimiterConfig.Applied a : config.match(
                RequestMethods.of(request, config.strictMatching(), config.overridesMatter()), request.getPath())) {
            names.add(a.policy().name());
        }
        return names;
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
        List<HttpRateLimiterConfig.Applied> applied =
                config.match(RequestMethods.of(request, config.strictMatching(), config.overridesMatter()),
                        request.getPath());
        if (routed != null && !applied.isEmpty()) {
            applied = applied.stream().filter(a -> routed.test(a.policy().name())).toList();
        }
        if (applied.isEmpty()) {
            return CompletableFuture.completedFuture(HttpDecision.NOT_LIMITED);
        }
        return decide(request, applied, acquisition);
    }

    /** Decides {@code applied} for {@code request}: the answer, or 400 for an identity that cannot be a key. */
    private CompletableFuture<HttpDecision> decide(HttpRequestView request, List<HttpRateLimiterConfig.Applied> applied,
            Acquisition acquisition) {
        List<PolicyStep> steps = new ArrayList<>(applied.size());
        for (HttpRateLimiterConfig.Applied a : applied) {
            steps.add(new PolicyStep(request, a.policy(), a.cost(), false, acquisition));
        }
        return AllOrNothing.acquire("the policies of a request", steps, charged -> {
            if (charged.stopped() && charged.last().failure() instanceof MalformedIdentity malformed) {
                return CompletableFuture.completedFuture(badRequest(malformed));
            }
            List<PolicyDecision> decisions = decisions(steps, charged);
            if (!charged.stopped()) {
                return CompletableFuture.completedFuture(answer(decisions));
            }
            // Refused, and the grants are back: the rest are only probed, taking nothing but showing their state.
            List<PolicyStep> rest = new ArrayList<>();
            for (PolicyStep step : steps.subList(charged.answers().size(), steps.size())) {
                rest.add(new PolicyStep(request, step.policy, 0, true, acquisition));
            }
            return AllOrNothing.acquire("the probes of a refused request", rest, probed -> {
                if (probed.stopped()) {
                    return CompletableFuture.completedFuture(badRequest((MalformedIdentity) probed.last().failure()));
                }
                decisions.addAll(decisions(rest, probed));
                return CompletableFuture.completedFuture(answer(decisions));
            });
        });
    }

    /** What each step decided, with the permits a refund gave back. */
    private static List<PolicyDecision> decisions(List<PolicyStep> steps, AllOrNothing.Result result) {
        List<PolicyDecision> decisions = new ArrayList<>(result.answers().size());
        for (int i = 0; i < result.answers().size(); i++) {
            PolicyDecision d = steps.get(i).decision;
            decisions.add(result.answers().get(i).refunded() ? d.refunded(d.permits()) : d);
        }
        return decisions;
    }

    /** A usage error, not a store failure: no failure mode applies, and what was taken is already back. */
    private static HttpDecision badRequest(MalformedIdentity malformed) {
        Responses.Answer answer = new Responses.Answer();
        Responses.badRequest(answer, malformed.getMessage());
        return HttpDecision.answer(answer);
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
     * One policy's part of a request, a step of the request's {@link AllOrNothing} sequence: this is where the
     * policies of a request are decided, for every server. An enforced policy that refuses or cannot decide
     * stops the sequence, which refunds what the earlier policies granted; a shadow policy never stops it. A
     * probe (0 permits) never stops it either.
     */
    private final class PolicyStep implements AllOrNothing.Step {
        private final HttpRequestView request;
        private final RateLimitPolicy policy;
        private final long permits;
        private final boolean probe;
        private final Acquisition acquisition;
        private final boolean shadow;
        /** Set when asked, read once the sequence has completed. */
        private String partition;
        private PolicyDecision decision;

        PolicyStep(HttpRequestView request, RateLimitPolicy policy, long permits, boolean probe,
                Acquisition acquisition) {
            this.request = request;
            this.policy = policy;
            this.permits = permits;
            this.probe = probe;
            this.acquisition = acquisition;
            this.shadow = config.shadow() || policy.shadow();
        }

        @Override
        public CompletableFuture<Lease> acquire() {
            try {
                partition = partition(identify(policy, request));
            } catch (IllegalArgumentException malformed) {
                throw new MalformedIdentity(policy.name(), malformed);
            }
            return acquisition.acquire(limiters.get(policy.name()), partition, permits);
        }

        @Override
        public boolean stops(Lease lease, Throwable failure) {
            if (failure instanceof MalformedIdentity) {
                return true;
            }
            decision = decision(policy, partition, lease, failure, probe, shadow, permits);
            counters.get(policy.name()).count(decision.kind());
            return !probe && (decision.refuses() || decision.unavailable());
        }
    }

    private static PolicyDecision decision(RateLimitPolicy policy, String partition, Lease lease, Throwable failure,
            boolean probe, boolean shadow, long permits) {
        if (failure != null) {
            if (failure instanceof DecisionUnavailableException) {
                LOG.log(Level.WARNING, "no rate-limit decision for policy ''{0}'': {1}", policy.name(),
                        failure.getMessage());
            } else {
                LOG.log(Level.ERROR, "rate-limit decision for policy '" + policy.name() + "' failed", failure);
            }
            return new PolicyDecision(policy, partition, null, PolicyDecision.Kind.UNAVAILABLE, shadow, permits, 0);
        }
        PolicyDecision.Kind kind = lease.isDegraded() ? PolicyDecision.Kind.DEGRADED
                : lease.isAcquired() ? (probe ? PolicyDecision.Kind.SKIPPED : PolicyDecision.Kind.GRANTED)
                : shadow ? PolicyDecision.Kind.SHADOW_REFUSED : PolicyDecision.Kind.REFUSED;
        return new PolicyDecision(policy, partition, lease, kind, shadow, permits, 0);
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
            Responses.unavailable(answer, List.of(new PolicyDecision(p, partition, lease, PolicyDecision.Kind.DEGRADED, false,
                    permits, 0)), config);
        } else {
            Responses.tooManyRequests(answer, List.of(new PolicyDecision(p, partition, lease, PolicyDecision.Kind.REFUSED,
                    false, permits, 0)), config);
        }
        return HttpDecision.answer(answer);
    }

    /**
     * The answer to a request whose policies were decided: 429 or 503 if a policy stopped the request (its
     * grants already refunded, which the headers show), else it proceeds with every policy's headers.
     */
    private HttpDecision answer(List<PolicyDecision> decisions) {
        Responses.Answer answer = new Responses.Answer();
        if (decisions.stream().anyMatch(PolicyDecision::refuses)) {
            Responses.tooManyRequests(answer, decisions, config);
            return HttpDecision.answer(answer);
        }
        if (decisions.stream().anyMatch(PolicyDecision::unavailable)) {
            Responses.unavailable(answer, decisions, config);
            return HttpDecision.answer(answer);
        }
        Responses.rateLimitHeaders(answer, decisions, config);
        List<Lease> held = new ArrayList<>();
        for (PolicyDecision d : decisions) {
            if (d.policy().spec() instanceof LimitSpec.Concurrency && d.lease() != null && d.lease().isAcquired()
                    && !d.lease().isDegraded()) {
                held.add(d.lease());
            }
        }
        return HttpDecision.proceed(answer, held);
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

    /** How permits are asked for; a failure, thrown or not, is the policy's answer. */
    @FunctionalInterface
    private interface Acquisition {
        CompletableFuture<Lease> acquire(PartitionedRateLimiter<String> limiter, String partition, long permits);
    }

    private static CompletableFuture<Lease> tryAcquire(PartitionedRateLimiter<String> limiter, String partition,
            long permits) {
        return CompletableFuture.completedFuture(limiter.tryAcquire(partition, permits));
    }

    /** One policy's counts. */
    private static final class Counters {
        private final LongAdder[] byOutcome = new LongAdder[PolicyDecision.Kind.values().length];

        Counters() {
            for (int i = 0; i < byOutcome.length; i++) {
                byOutcome[i] = new LongAdder();
            }
        }

        void count(PolicyDecision.Kind outcome) {
            byOutcome[outcome.ordinal()].increment();
        }

        PolicyStatistics snapshot() {
            return new PolicyStatistics(sum(PolicyDecision.Kind.GRANTED), sum(PolicyDecision.Kind.REFUSED),
                    sum(PolicyDecision.Kind.SHADOW_REFUSED), sum(PolicyDecision.Kind.DEGRADED),
                    sum(PolicyDecision.Kind.UNAVAILABLE), sum(PolicyDecision.Kind.SKIPPED));
        }

        private long sum(PolicyDecision.Kind outcome) {
            return byOutcome[outcome.ordinal()].sum();
        }
    }
}
