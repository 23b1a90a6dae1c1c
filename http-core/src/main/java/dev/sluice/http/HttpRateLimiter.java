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
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;

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
 *       temporary-reduced-capacity problem body, since that refusal is not about the client's quota; under
 *       {@code LOCAL}, this replica's share of the limit decides, and its refusal is a {@code 429} (still marked
 *       degraded), since it is about quota.
 * </ul>
 * A request's policies are decided one after another, each on its own key, and each is asked once: once an
 * enforced policy has refused, the later ones are asked with a probe that takes nothing but still shows their
 * state, and what the earlier ones granted is refunded before the 429 goes out, so a refused request costs no
 * policy anything. Every header is written from those answers (a refunded grant's remaining count with its
 * permits back), never from a second round of asking. Putting the narrowest policies (per client) before the
 * broad ones (one budget for everyone) spares the broad ones a charge and its refund when the client is over
 * its own limit.
 *
 * <p>A policy in shadow mode ({@link RateLimitPolicy#withShadow(boolean)}, or every policy with
 * {@link HttpRateLimiterConfig.Builder#shadow(boolean)}) is decided and charged as if enforced, answers the
 * same headers, but never refuses; its would-be refusals are counted apart ({@link #statistics()}, and
 * {@link DecisionResult#SHADOW_REFUSED} to its options' listeners, so {@code SluiceMetrics} tags them
 * {@code result=shadow_refused}). It does not change what the other policies are charged.
 *
 * <p>Every refusal says why, without the client's identity: one {@code DEBUG} line per refusing policy on
 * {@link #REFUSAL_LOGGER}, the latest refused requests in {@link #refusals()} (bounded by
 * {@link HttpRateLimiterConfig#refusalTrace()}), and, when {@link HttpRateLimiterConfig#problemDecisions()} is on,
 * {@code refused-by} in the 429 problem body; each names the policy and the hash its key was counted under.
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
    /**
     * The logger that tells, at {@code DEBUG}, why each request was refused: one line per refusing policy (in
     * shadow mode too) with the policy, the hash of the client identity it counted, remaining, limit, reset,
     * retry-after, the method, the path and the routes that matched. Off, it costs a refusal one level check.
     */
    public static final String REFUSAL_LOGGER = "dev.sluice.http.refusals";

    private static final System.Logger LOG = System.getLogger(HttpRateLimiter.class.getName());

    private final HttpRateLimiterConfig config;
    private final Routes routes;
    private final Map<String, PartitionedRateLimiter<String>> limiters;
    private final Map<String, Counters> counters;
    private final Refusals refusals;
    /** The policies this instance decides by route; null for all of them. */
    private final Predicate<String> routed;

    /**
     * A rate limiter that enforces {@code config} on {@code limiters}.
     *
     * @throws IllegalArgumentException if a policy is not accepted by {@code limiters}
     */
    public HttpRateLimiter(RateLimiters limiters, HttpRateLimiterConfig config) {
        Objects.requireNonNull(limiters, "limiters");
        this.config = Objects.requireNonNull(config, "config");
        this.routes = new Routes(config);
        Map<String, PartitionedRateLimiter<String>> created = new LinkedHashMap<>();
        Map<String, Counters> counted = new LinkedHashMap<>();
        try {
            for (RateLimitPolicy p : config.policies().values()) {
                LimiterOptions options = config.shadow() || p.shadow() ? shadowed(p.options()) : p.options();
                PolicyPlans plans = config.policyPlans(p.name());
                created.put(p.name(), plans == null ? limiters.partitioned(p.name(), p.spec(), options)
                        : limiters.planned(p.name(), plans.plans(), options, PolicyPlans::identityOf,
                                PolicyPlans::planOf));
                counted.put(p.name(), new Counters());
            }
        } catch (RuntimeException e) {
            created.values().forEach(PartitionedRateLimiter::close);
            throw e;
        }
        this.limiters = Collections.unmodifiableMap(created);
        this.counters = Collections.unmodifiableMap(counted);
        this.refusals = new Refusals(routes, config.refusalTrace());
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

    private HttpRateLimiter(HttpRateLimiter whole, Predicate<String> routed) {
        this.config = whole.config;
        this.routes = whole.routes;
        this.limiters = whole.limiters;
        this.counters = whole.counters;
        this.refusals = whole.refusals;
        this.routed = routed;
    }

    /**
     * This rate limiter deciding by route only the policies {@code policies} accepts, sharing its limiters,
     * budgets and statistics: for a server where some policies can be decided earlier than others (ahead of an
     * authentication filter, say, and after it). {@link #decideAsync(HttpRequestView, List)} is not restricted;
     * {@link #close()} closes the shared limiters.
     */
    public HttpRateLimiter restrictedTo(Predicate<String> policies) {
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
        List<DecisionListener> told = new ArrayList<>(options.listeners().size());
        for (DecisionListener listener : options.listeners()) {
            told.add(new DecisionListener() {
                @Override
                public void onDecision(String limiter, DecisionResult result, long durationNanos) {
                    listener.onDecision(limiter, result == DecisionResult.REFUSED ? DecisionResult.SHADOW_REFUSED
                            : result, durationNanos);
                }

                @Override
                public void onQueueChanged(String limiter, long queuedPermits) {
                    listener.onQueueChanged(limiter, queuedPermits);
                }

                @Override
                public void onFallbackDecision(String limiter, boolean granted) {
                    listener.onFallbackDecision(limiter, granted);
                }
            });
        }
        return options.toBuilder().listeners(told).build();
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

    /**
     * The latest requests a policy refused, newest first, at most {@link HttpRateLimiterConfig#refusalTrace()} of
     * them: the routes that matched and what every policy that ran decided, identities hashed. Requests only a
     * shadow policy refused are among them, marked as not refused. Shared by every {@link #restrictedTo} view.
     */
    public List<RefusedRequest> refusals() {
        return refusals.recent();
    }

    /**
     * Decides a request with {@code tryAcquire}, on the calling thread: returns once the store (or the failure
     * mode) has answered, and on a refusal once the earlier grants are given back.
     */
    public HttpDecision decide(HttpRequestView request) {
        List<Routes.Applied> applied = applied(Objects.requireNonNull(request, "request"));
        if (applied.isEmpty()) {
            return HttpDecision.NOT_LIMITED;
        }
        List<PolicyDecision> decided = new ArrayList<>(applied.size());
        for (Routes.Applied a : applied) {
            String partition;
            try {
                partition = partition(a.policy(), request);
            } catch (MalformedIdentity malformed) {
                refundGrants(decided).join();
                return badRequest(malformed);
            }
            long permits = permits(a, decided);
            Asked asked = asked(a.policy(), partition, request);
            Lease lease = null;
            Throwable failure = null;
            try {
                lease = limiters.get(a.policy().name()).tryAcquire(asked.limiterPartition(), permits);
            } catch (RuntimeException e) {
                failure = e;
            }
            decided.add(decided(asked.policy(), partition, permits, lease, failure));
        }
        List<PolicyDecision> settled = settled(decided).join();
        refusals.explain(request, true, null, settled);
        return answer(settled);
    }

    /**
     * Decides a request with {@code acquireAsync}: no thread waits for the store. The future completes on
     * the thread that completes the store's answer (for Hazelcast, Sluice's callback executor), or at once.
     * Cancelling it cancels the decision in flight and gives back what the request was granted.
     */
    public CompletableFuture<HttpDecision> decideAsync(HttpRequestView request) {
        List<Routes.Applied> applied = applied(Objects.requireNonNull(request, "request"));
        if (applied.isEmpty()) {
            return CompletableFuture.completedFuture(HttpDecision.NOT_LIMITED);
        }
        return walkAsync(applied, p -> partition(p, request), true, request, true, null);
    }

    /**
     * Decides {@code policies}, in order and one permit each, for a request that a server routed itself (a
     * gateway's route, say) instead of by this configuration's routes: the same identities, headers, answers
     * and shadow mode as {@link #decideAsync(HttpRequestView)}.
     *
     * @throws IllegalArgumentException if a policy is not defined
     */
    public CompletableFuture<HttpDecision> decideAsync(HttpRequestView request, List<String> policies) {
        return decideAsync(request, policies, null);
    }

    /**
     * {@link #decideAsync(HttpRequestView, List)} for a request the server routed by {@code route} (a gateway
     * route's id, say), which a refusal names as the route that matched ({@link #REFUSAL_LOGGER},
     * {@link #refusals()}).
     *
     * @param route the server's route, or null
     * @throws IllegalArgumentException if a policy is not defined
     */
    public CompletableFuture<HttpDecision> decideAsync(HttpRequestView request, List<String> policies, String route) {
        Objects.requireNonNull(request, "request");
        return walkAsync(named(policies, 1), p -> partition(p, request), true, request, false, route);
    }

    /**
     * Decides {@code policies}, in order and {@code permits} each, for a client its caller identified
     * ({@code identity}, counted under {@link #partition(String)} by every policy), as a gateway's
     * {@code RequestRateLimiter} asks: all or nothing and in shadow mode as for a request, but a refusal ends the
     * sequence at the refusing policy (the later ones are not asked) and the answer carries that policy's headers
     * only. A policy that got no decision under failure mode {@code THROW} fails the future with the store's
     * failure instead of answering 503.
     *
     * @throws IllegalArgumentException if a policy is not defined, {@code permits} is below 1 or {@code identity}
     *     is not well-formed UTF-16
     */
    public CompletableFuture<HttpDecision> decideAsync(String identity, List<String> policies, long permits) {
        return decideAsync(identity, policies, permits, null);
    }

    /**
     * {@link #decideAsync(String, List, long)} for a request the server routed by {@code route} (a gateway route's
     * id, say), which a refusal names as the route that matched ({@link #REFUSAL_LOGGER}, {@link #refusals()}).
     *
     * @param route the server's route, or null
     * @throws IllegalArgumentException if a policy is not defined, {@code permits} is below 1 or {@code identity}
     *     is not well-formed UTF-16
     */
    public CompletableFuture<HttpDecision> decideAsync(String identity, List<String> policies, long permits,
            String route) {
        Objects.requireNonNull(identity, "identity");
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        List<Routes.Applied> applied = named(policies, permits);
        String partition = partition(identity);
        return walkAsync(applied, p -> partition, false, null, false, route);
    }

    private List<Routes.Applied> named(List<String> policies, long permits) {
        List<Routes.Applied> applied = new ArrayList<>(policies.size());
        for (String name : policies) {
            RateLimitPolicy p = config.policies().get(name);
            if (p == null) {
                throw new IllegalArgumentException("no policy '" + name + "'; defined policies: "
                        + config.policies().keySet());
            }
            applied.add(new Routes.Applied(p, permits));
        }
        return applied;
    }

    /**
     * The partition (the part of a store key after the policy) that {@code identity} is counted under, as the
     * filters count it: the digest of its HMAC-SHA256 under the identity secret, or without one of its SHA-256
     * ({@link Keys#digest(String)}): {@link Keys#DIGEST_LENGTH} base64url characters.
     *
     * @throws IllegalArgumentException if {@code identity} is not well-formed UTF-16
     */
    public String partition(String identity) {
        return config.identityKeys().partition(Objects.requireNonNull(identity, "identity"));
    }

    /**
     * The identity {@code policy} counts a client under, for an operator who knows the client as
     * {@code address:<ip>}, {@code api-key:<key>} or {@code principal:<user>}: the policy's own identity rule run on
     * a request that carries only that (its address as the peer, its key in the API key header, its user), so the
     * answer is the one the filters derive, as {@code kind:value} before hashing; {@link #partition(String)} of it
     * is the partition. A kind the policy does not count by falls back as a request without it does (to the
     * address, {@code ip:unknown}).
     *
     * @throws IllegalArgumentException if the policy is not defined or {@code client} is not of those forms
     */
    public String identityOf(String policy, String client) {
        RateLimitPolicy p = config.policies().get(Objects.requireNonNull(policy, "policy"));
        if (p == null) {
            throw new IllegalArgumentException("no policy '" + policy + "'; defined policies: "
                    + config.policies().keySet());
        }
        return identify(p, KnownClient.parse(client));
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
        for (Routes.Applied a : routes.match(request)) {
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

    /** The policies this instance decides for {@code request} by route, in order. */
    private List<Routes.Applied> applied(HttpRequestView request) {
        List<Routes.Applied> applied = routes.match(request);
        if (routed != null && !applied.isEmpty()) {
            applied = applied.stream().filter(a -> routed.test(a.policy().name())).toList();
        }
        return applied;
    }

    // ---- the decision sequence of a request, one rule for both drivers ----
    //
    // The policies are asked in order, each on its own key. An enforced policy that refuses or cannot decide stops
    // the request: the later ones are then only probed (0 permits, which takes nothing but shows their state), or,
    // for a caller that wants only the refusing policy's answer, not asked at all; once every answer is in, what
    // the earlier ones granted is given back. Every header comes from that one answer per policy.

    /** The partition {@code policy} counts {@code request} under; a malformed identity answers 400. */
    private String partition(RateLimitPolicy policy, HttpRequestView request) {
        try {
            return partition(identify(policy, request));
        } catch (IllegalArgumentException malformed) {
            throw new MalformedIdentity(policy.name(), malformed);
        }
    }

    /** The permits a policy is asked for: its cost, or none (a probe) once the request has stopped. */
    private static long permits(Routes.Applied applied, List<PolicyDecision> decided) {
        for (PolicyDecision d : decided) {
            if (stops(d)) {
                return 0;
            }
        }
        return applied.cost();
    }

    /** Whether a policy's answer stops the request: an enforced refusal, or no decision, for real permits. */
    private static boolean stops(PolicyDecision d) {
        return d.permits() > 0 && (d.refuses() || d.unavailable());
    }

    /** A policy's answer to {@code permits} (0 for a probe), counted in its statistics. */
    private PolicyDecision decided(RateLimitPolicy policy, String partition, long permits, Lease lease,
            Throwable failure) {
        PolicyDecision d = decision(policy, partition, lease, failure, permits == 0,
                config.shadow() || policy.shadow(), permits);
        counters.get(policy.name()).count(d.kind());
        return d;
    }

    /** The decisions once a stopped request's grants are back (marked refunded where the store gave them back). */
    private static CompletableFuture<List<PolicyDecision>> settled(List<PolicyDecision> decided) {
        for (PolicyDecision d : decided) {
            if (stops(d)) {
                return refundGrants(decided);
            }
        }
        return CompletableFuture.completedFuture(decided);
    }

    /** Gives back every grant among {@code decided}; completes, never exceptionally, once every refund has. */
    private static CompletableFuture<List<PolicyDecision>> refundGrants(List<PolicyDecision> decided) {
        List<CompletableFuture<PolicyDecision>> refunded = new ArrayList<>(decided.size());
        for (PolicyDecision d : decided) {
            refunded.add(granted(d) ? refund(d.lease()).thenApply(gave -> gave ? d.refunded(d.permits()) : d)
                    : CompletableFuture.completedFuture(d));
        }
        return CompletableFuture.allOf(refunded.toArray(CompletableFuture[]::new))
                .thenApply(done -> refunded.stream().map(CompletableFuture::join).toList());
    }

    private static boolean granted(PolicyDecision d) {
        return d.permits() > 0 && d.lease() != null && d.lease().isAcquired();
    }

    /** A refund that fails leaves its permits spent (stricter only): logged, never thrown. */
    private static CompletableFuture<Boolean> refund(Lease lease) {
        CompletableFuture<Boolean> refund;
        try {
            refund = lease.refund();
        } catch (RuntimeException e) {
            refund = CompletableFuture.failedFuture(e);
        }
        return refund.handle((gave, failure) -> {
            if (failure != null) {
                LOG.log(Level.WARNING, "a refund of a refused request's grant failed; those permits stay spent",
                        failure);
            }
            return failure == null && Boolean.TRUE.equals(gave);
        });
    }

    /**
     * The asynchronous driver of the sequence: asks {@code applied} one after another, each once the one before
     * has answered, on the thread that completed that answer.
     *
     * @param wholeRequest true to probe the policies after a stop and answer with every policy's headers; false
     *     to end at the stop and answer with the stopping policy's alone, failing under {@code THROW}
     * @param request the request, for the refusal trace; null when the caller identified the client
     * @param routed true if the routes chose the policies, false if the caller named them
     * @param route the caller's route, or null
     */
    private CompletableFuture<HttpDecision> walkAsync(List<Routes.Applied> applied,
            Function<RateLimitPolicy, String> partitions, boolean wholeRequest, HttpRequestView request,
            boolean routed, String route) {
        CompletableFuture<HttpDecision> out = new CompletableFuture<>();
        AtomicReference<CompletableFuture<Lease>> inFlight = new AtomicReference<>();
        out.whenComplete((decision, failure) -> {
            CompletableFuture<Lease> pending = inFlight.get();
            if (out.isCancelled() && pending != null) {
                pending.cancel(false); // leaves the limiter's queue; a grant still on its way goes back
            }
        });
        Walk walk = new Walk(applied, partitions, wholeRequest, request, routed, route, out, inFlight);
        ask(walk, new ArrayList<>(applied.size()));
        return out;
    }

    /** What stays the same while one request's policies are asked one after another. */
    private record Walk(List<Routes.Applied> applied, Function<RateLimitPolicy, String> partitions,
            boolean wholeRequest, HttpRequestView request, boolean routed, String route,
            CompletableFuture<HttpDecision> out, AtomicReference<CompletableFuture<Lease>> inFlight) {}

    private void ask(Walk walk, List<PolicyDecision> decided) {
        List<Routes.Applied> applied = walk.applied();
        Function<RateLimitPolicy, String> partitions = walk.partitions();
        boolean wholeRequest = walk.wholeRequest();
        CompletableFuture<HttpDecision> out = walk.out();
        AtomicReference<CompletableFuture<Lease>> inFlight = walk.inFlight();
        int index = decided.size();
        boolean stopped = index > 0 && stops(decided.get(index - 1)) && !wholeRequest;
        if (index == applied.size() || stopped) {
            settled(decided).whenComplete((settled, never) -> {
                try {
                    if (!out.isDone()) { // a caller that gave up got no answer to explain
                        refusals.explain(walk.request(), walk.routed(), walk.route(), settled);
                    }
                    deliver(out, settled, wholeRequest);
                } catch (RuntimeException | Error e) {
                    refundGrants(settled);
                    out.completeExceptionally(e);
                }
            });
            return;
        }
        Routes.Applied a = applied.get(index);
        String partition;
        try {
            partition = partitions.apply(a.policy());
        } catch (MalformedIdentity malformed) {
            refundGrants(decided).whenComplete((refunded, never) -> {
                if (!out.complete(badRequest(malformed))) {
                    refundGrants(decided);
                }
            });
            return;
        }
        long permits = permits(a, decided);
        Asked asked = asked(a.policy(), partition, walk.request());
        CompletableFuture<Lease> answer;
        try {
            answer = limiters.get(a.policy().name()).acquireAsync(asked.limiterPartition(), permits);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        inFlight.set(answer);
        if (out.isDone()) {
            answer.cancel(false);
        }
        answer.whenComplete((lease, error) -> {
            if (out.isDone()) { // the caller gave up: what was granted goes back
                if (lease != null && lease.isAcquired()) {
                    refund(lease);
                }
                refundGrants(decided);
                return;
            }
            try {
                decided.add(decided(asked.policy(), partition, permits, lease, error == null ? null : unwrap(error)));
                ask(walk, decided);
            } catch (RuntimeException | Error e) { // in a callback, an unseen throwable would leave out pending
                refundGrants(decided);
                out.completeExceptionally(e);
            }
        });
    }

    /** Completes {@code out} with the answer; if the caller gave up meanwhile, the grants go back. */
    private void deliver(CompletableFuture<HttpDecision> out, List<PolicyDecision> decided, boolean wholeRequest) {
        PolicyDecision last = decided.isEmpty() ? null : decided.get(decided.size() - 1);
        boolean delivered;
        if (wholeRequest || last == null) {
            delivered = out.complete(answer(decided));
        } else if (stops(last) && last.kind() == PolicyDecision.Kind.UNAVAILABLE) {
            delivered = out.completeExceptionally(last.failure());
        } else {
            delivered = out.complete(answer(stops(last) ? List.of(last) : decided));
        }
        if (!delivered) {
            refundGrants(decided);
        }
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
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

    private static PolicyDecision decision(RateLimitPolicy policy, String partition, Lease lease, Throwable failure,
            boolean probe, boolean shadow, long permits) {
        if (failure != null) {
            if (failure instanceof DecisionUnavailableException) {
                LOG.log(Level.WARNING, "no rate-limit decision for policy ''{0}'': {1}", policy.name(),
                        failure.getMessage());
            } else {
                LOG.log(Level.ERROR, "rate-limit decision for policy '" + policy.name() + "' failed", failure);
            }
            return new PolicyDecision(policy, partition, null, PolicyDecision.Kind.UNAVAILABLE, shadow, permits, 0,
                    failure);
        }
        PolicyDecision.Kind kind = lease.isDegraded() ? PolicyDecision.Kind.DEGRADED
                : lease.isAcquired() ? (probe ? PolicyDecision.Kind.SKIPPED : PolicyDecision.Kind.GRANTED)
                : shadow ? PolicyDecision.Kind.SHADOW_REFUSED : PolicyDecision.Kind.REFUSED;
        return new PolicyDecision(policy, partition, lease, kind, shadow, permits, 0, null);
    }

    /**
     * The answer the filters give to a request that {@code policy} refused with {@code lease}, for a
     * refusal decided elsewhere (such as a method-level limit): 429, the policy's headers, {@code Retry-After}
     * and the same problem body; or, when the lease is degraded (the store could not decide and failure mode
     * {@code DENY} refused), 503 with the temporary-reduced-capacity body, since that refusal is not about
     * quota. A 429 is logged on {@link #REFUSAL_LOGGER} and kept in {@link #refusals()} as the filters' are, with no
     * method, path or route.
     *
     * @param partition the digest of the identity the permits were asked under ({@link #partition(String)})
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
                    permits, 0, null)), config);
        } else {
            List<PolicyDecision> refused = List.of(new PolicyDecision(p, partition, lease, PolicyDecision.Kind.REFUSED,
                    false, permits, 0, null));
            refusals.explain(null, false, null, refused);
            Responses.tooManyRequests(answer, refused, config);
        }
        return HttpDecision.answer(answer);
    }

    /**
     * The answer to a request whose policies were decided: 429 or 503 if a policy stopped the request (its
     * grants already refunded, which the headers show), else it proceeds with every policy's headers.
     */
    private HttpDecision answer(List<PolicyDecision> decisions) {
        Responses.Answer answer = new Responses.Answer();
        if (decisions.stream().anyMatch(d -> d.refuses() && unknownPlan(d))) {
            Responses.noPlan(answer, decisions.stream().filter(d -> d.refuses() && unknownPlan(d)).toList(), config);
            return HttpDecision.answer(answer);
        }
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
                    && (!d.lease().isDegraded() || d.lease().isLocalFallback())) {
                held.add(d.lease());
            }
        }
        return HttpDecision.proceed(answer, held).settling(ResponseSettlement.of(decisions, config.responseCosts()));
    }

    // ---- plans ----

    /**
     * What a policy is asked with: the partition its limiter takes (with the client's plan for a planned policy) and
     * the policy as that plan has it, which the decision reports.
     */
    private record Asked(RateLimitPolicy policy, String limiterPartition) {}

    private Asked asked(RateLimitPolicy policy, String partition, HttpRequestView request) {
        PolicyPlans plans = config.policyPlans(policy.name());
        if (plans == null) {
            return new Asked(policy, partition);
        }
        String plan = plans.canonical(planOf(plans, policy, request));
        RateLimitPolicy view = plans.plans().resolve(plan).map(plans::view).orElse(policy);
        return new Asked(view, PolicyPlans.partition(partition, plan));
    }

    /**
     * The plan a request's client is on for a planned policy, or null: none known (no request, when the caller
     * identified the client itself), or a resolver that failed, which is logged.
     */
    private static String planOf(PolicyPlans plans, RateLimitPolicy policy, HttpRequestView request) {
        if (request == null) {
            return null;
        }
        try {
            return plans.resolver().resolve(request);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the plan of a client of policy '" + policy.name() + "' could not be read ("
                    + plans.source() + "); deciding it as a client without a plan", e);
            return null;
        }
    }

    /** Whether a decision was refused because the client's plan is unknown and its policy refuses unknown plans. */
    private boolean unknownPlan(PolicyDecision d) {
        return d.lease() != null && !d.lease().isAcquired() && !d.lease().isDegraded()
                && config.policyPlans(d.policy().name()) != null && config.planOf(d.policy()) == null;
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
