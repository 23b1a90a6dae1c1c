package dev.sluice.servlet;

import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.PartitionedRateLimiter;
import dev.sluice.limiter.RateLimiters;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Jakarta Servlet filter that rate-limits requests per client with Sluice. Thread-safe.
 *
 * <p>For each request dispatched from the client ({@link DispatcherType#REQUEST}; forwards, includes,
 * async and error dispatches pass through), every {@link Route} that matches its method and path names
 * policies; each {@link RateLimitPolicy} applies at most once, with the cost of the first route that
 * names it, in route order. A request no route matches passes through without touching the store. Each
 * policy identifies the client by its own identity or the filter's
 * ({@link RateLimitFilterConfig#identityResolver()}, by default the client address), hashed with
 * {@link Keys#sha256(String)}, and takes the cost from that client's budget:
 * <ul>
 *   <li>all granted: the request proceeds with {@code RateLimit-Policy} and {@code RateLimit} headers
 *       listing every policy;
 *   <li>any enforced policy refused: {@code 429} with {@code Retry-After} (the longest wait among the
 *       refusing policies, whole seconds, rounded up, at least 1) and a quota-exceeded problem body naming
 *       them;
 *   <li>no decision from the store: the policy's failure mode decides ({@code ALLOW} by default here),
 *       marked {@code RateLimit-Degraded: true}; under {@code THROW}, {@code 503} with a
 *       temporary-reduced-capacity problem body.
 * </ul>
 * Policies are decided one after another, each in its own step (there is no one atomic decision across
 * policies). So a refusal by a later policy does not give back what the earlier ones granted: their
 * permits stay spent, as for any refused request (only a concurrency lease is released at once). Once an
 * enforced policy has refused, the later ones are only asked, with a probe that takes nothing: a refused
 * request costs them nothing, and still shows their state. Put the narrowest policies (per client) before
 * the broad ones (one budget for everyone), so that a client over its own limit cannot spend the shared one.
 *
 * <p>A policy in shadow mode ({@link RateLimitPolicy#withShadow(boolean)}, or every policy with
 * {@link RateLimitFilterConfig.Builder#shadow(boolean)}) is decided and charged as if enforced, answers the
 * same headers, but never refuses; its would-be refusals are counted apart ({@link #statistics()}, and
 * {@link DecisionResult#SHADOW_REFUSED} to its options' listeners, so {@code SluiceMetrics} tags them
 * {@code result=shadow_refused}). It does not change what the other policies are charged.
 *
 * <p>A concurrency policy holds its lease while the request runs, also while it is asynchronous, and
 * releases it when the request completes, fails or times out.
 *
 * <p>Use it from code with {@link #RateLimitFilter(RateLimiters, RateLimitFilterConfig)}, or declare it
 * in {@code web.xml}/with {@code @WebFilter}: the no-argument form takes the {@link RateLimiters} from the
 * servlet context attribute {@link #RATE_LIMITERS_ATTRIBUTE} and its configuration from the filter's
 * {@code sluice.*} init parameters (see {@link RateLimitFilterConfig}), or from a
 * {@link RateLimitFilterConfig} in the context attribute {@link #CONFIG_ATTRIBUTE}. The filter never
 * closes the {@link RateLimiters}; {@link #destroy()} closes the limiters it created.
 */
public final class RateLimitFilter implements Filter {
    /** The servlet context attribute holding the {@link RateLimiters} for the no-argument form. */
    public static final String RATE_LIMITERS_ATTRIBUTE = RateLimiters.class.getName();

    /** The servlet context attribute that may hold the {@link RateLimitFilterConfig} for the no-argument form. */
    public static final String CONFIG_ATTRIBUTE = RateLimitFilterConfig.class.getName();

    private static final System.Logger LOG = System.getLogger(RateLimitFilter.class.getName());

    private volatile RateLimitFilterConfig config;
    private volatile Map<String, PartitionedRateLimiter<String>> limiters = Map.of();
    private volatile Map<String, Counters> counters = Map.of();

    /** A filter configured in {@link #init(FilterConfig)} from the servlet context and init parameters. */
    public RateLimitFilter() {}

    /**
     * A filter that enforces {@code config} on {@code limiters}; it creates one partitioned limiter per
     * policy at once.
     *
     * @throws IllegalArgumentException if a policy is not accepted by {@code limiters}
     */
    public RateLimitFilter(RateLimiters limiters, RateLimitFilterConfig config) {
        start(Objects.requireNonNull(limiters, "limiters"), Objects.requireNonNull(config, "config"));
    }

    private void start(RateLimiters rateLimiters, RateLimitFilterConfig cfg) {
        Map<String, PartitionedRateLimiter<String>> created = new LinkedHashMap<>();
        Map<String, Counters> counted = new LinkedHashMap<>();
        try {
            for (RateLimitPolicy p : cfg.policies().values()) {
                LimiterOptions options = cfg.shadow() || p.shadow() ? shadowed(p.options()) : p.options();
                created.put(p.name(), rateLimiters.partitioned(p.name(), p.spec(), options));
                counted.put(p.name(), new Counters());
            }
        } catch (RuntimeException e) {
            created.values().forEach(PartitionedRateLimiter::close);
            throw e;
        }
        this.limiters = Collections.unmodifiableMap(created);
        this.counters = Collections.unmodifiableMap(counted);
        this.config = cfg;
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

    /**
     * Starts a filter made with the no-argument constructor; does nothing for one made with a
     * configuration.
     *
     * @throws ServletException if the context holds no {@link RateLimiters}, or the configuration is
     *     invalid (the message names the property, its value and what is allowed)
     */
    @Override
    public void init(FilterConfig filterConfig) throws ServletException {
        if (config != null) {
            return;
        }
        Object limitersAttribute = filterConfig.getServletContext().getAttribute(RATE_LIMITERS_ATTRIBUTE);
        if (!(limitersAttribute instanceof RateLimiters rateLimiters)) {
            throw new ServletException("rate-limit filter '" + filterConfig.getFilterName()
                    + "' needs a RateLimiters in the servlet context attribute " + RATE_LIMITERS_ATTRIBUTE
                    + ", found " + limitersAttribute);
        }
        RateLimitFilterConfig cfg;
        Object configAttribute = filterConfig.getServletContext().getAttribute(CONFIG_ATTRIBUTE);
        if (configAttribute instanceof RateLimitFilterConfig c) {
            cfg = c;
        } else {
            Properties properties = new Properties();
            for (String name : Collections.list(filterConfig.getInitParameterNames())) {
                properties.setProperty(name, filterConfig.getInitParameter(name));
            }
            try {
                cfg = RateLimitFilterConfig.fromProperties(properties);
            } catch (IllegalArgumentException e) {
                throw new ServletException("rate-limit filter '" + filterConfig.getFilterName()
                        + "' has an invalid configuration: " + e.getMessage(), e);
            }
        }
        try {
            start(rateLimiters, cfg);
        } catch (RuntimeException e) {
            throw new ServletException("rate-limit filter '" + filterConfig.getFilterName() + "' could not start: "
                    + e.getMessage(), e);
        }
    }

    /** The configuration in force, or null before {@link #init(FilterConfig)}. */
    public RateLimitFilterConfig config() {
        return config;
    }

    /**
     * What this filter made of each policy's decisions since it started, by policy name in configuration
     * order (see {@link PolicyStatistics}); empty before {@link #init(FilterConfig)}. The limiters' own
     * {@link PartitionedRateLimiter#statistics()} count a shadow policy's refusals as refusals: the limiter
     * did refuse, and only the filter let the request through.
     */
    public Map<String, PolicyStatistics> statistics() {
        Map<String, PolicyStatistics> snapshot = new LinkedHashMap<>();
        counters.forEach((name, c) -> snapshot.put(name, c.snapshot()));
        return Collections.unmodifiableMap(snapshot);
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        RateLimitFilterConfig cfg = config;
        if (cfg == null) {
            throw new IllegalStateException("rate-limit filter used before init()");
        }
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)
                || request.getDispatcherType() != DispatcherType.REQUEST) {
            chain.doFilter(req, res);
            return;
        }
        List<RateLimitFilterConfig.Applied> applied =
                cfg.match(RequestMethods.of(request, cfg.strictMatching()), pathOf(request));
        if (applied.isEmpty()) {
            chain.doFilter(req, res);
            return;
        }
        List<Decision> decisions = decide(cfg, request, applied);
        boolean refused = decisions.stream().anyMatch(Decision::refuses);
        if (refused || decisions.stream().anyMatch(Decision::unavailable)) {
            refundAll(decisions);
            if (refused) {
                Responses.tooManyRequests(response, decisions, cfg);
            } else {
                Responses.unavailable(response, decisions, cfg);
            }
            return;
        }
        Responses.rateLimitHeaders(response, decisions, cfg);
        List<Lease> held = new ArrayList<>();
        for (Decision d : decisions) {
            if (d.policy().spec() instanceof LimitSpec.Concurrency && d.lease() != null && d.lease().isAcquired()
                    && !d.lease().isDegraded()) {
                held.add(d.lease());
            }
        }
        if (held.isEmpty()) {
            chain.doFilter(request, response);
            return;
        }
        holdDuring(held, request, response, chain);
    }

    /**
     * Decides each policy in order. Once an enforced policy has refused or could not decide, the rest are
     * only probed (0 permits), so the refused request takes nothing from them.
     */
    private List<Decision> decide(RateLimitFilterConfig cfg, HttpServletRequest request,
            List<RateLimitFilterConfig.Applied> applied) {
        List<Decision> decisions = new ArrayList<>(applied.size());
        boolean stopped = false;
        for (RateLimitFilterConfig.Applied a : applied) {
            RateLimitPolicy policy = a.policy();
            boolean shadow = cfg.shadow() || policy.shadow();
            String partition = Keys.sha256(identify(cfg, policy, request));
            Lease lease;
            Decision.Outcome outcome;
            try {
                lease = limiters.get(policy.name()).tryAcquire(partition, stopped ? 0 : a.cost());
                outcome = lease.isDegraded() ? Decision.Outcome.DEGRADED
                        : lease.isAcquired() ? (stopped ? Decision.Outcome.SKIPPED : Decision.Outcome.GRANTED)
                        : shadow ? Decision.Outcome.SHADOW_REFUSED : Decision.Outcome.REFUSED;
            } catch (DecisionUnavailableException e) {
                LOG.log(Level.WARNING, "no rate-limit decision for policy ''{0}'': {1}", policy.name(), e.getMessage());
                lease = null;
                outcome = Decision.Outcome.UNAVAILABLE;
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "rate-limit decision for policy '" + policy.name() + "' failed", e);
                lease = null;
                outcome = Decision.Outcome.UNAVAILABLE;
            }
            Decision d = new Decision(policy, partition, lease, outcome, shadow);
            counters.get(policy.name()).count(outcome);
            decisions.add(d);
            stopped |= d.refuses() || d.unavailable();
        }
        return decisions;
    }

    /**
     * Gives back what the policies before the refusing one granted (a rate's permits, a concurrency lease), as
     * a chain does, before the client hears back: a refused request costs no policy anything. Waits at most
     * the slowest policy's decision timeout; a refund that fails leaves its permits spent (stricter only).
     */
    private static void refundAll(List<Decision> decisions) {
        List<CompletableFuture<Boolean>> refunds = new ArrayList<>();
        for (Decision d : decisions) {
            if (d.lease() != null) {
                refunds.add(d.lease().refund());
            }
        }
        try {
            CompletableFuture.allOf(refunds.toArray(CompletableFuture[]::new)).join();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "a refund failed; those permits stay spent: {0}", e.toString());
        }
    }

    /** Runs the chain holding concurrency leases; releases them when the request ends, however it ends. */
    private static void holdDuring(List<Lease> leases, HttpServletRequest request, HttpServletResponse response,
            FilterChain chain) throws IOException, ServletException {
        LeaseHoldingRequest wrapped = new LeaseHoldingRequest(request, leases);
        boolean handedOver = false;
        try {
            chain.doFilter(wrapped, response);
            if (request.isAsyncStarted()) {
                handedOver = wrapped.releaseOnAsyncEnd(request.getAsyncContext());
            }
        } finally {
            if (!handedOver) {
                leases.forEach(Lease::close);
            }
        }
    }

    /**
     * The identity a policy counts a request under: its own resolver or the filter's, else (null, or a
     * resolver that threw) the client address by the configuration's rules, which always answers.
     */
    private static String identify(RateLimitFilterConfig cfg, RateLimitPolicy policy, HttpServletRequest request) {
        ClientIdentityResolver resolver = policy.identity() != null ? policy.identity() : cfg.identityResolver();
        String id;
        try {
            id = resolver.resolve(request);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "identity of policy '" + policy.name() + "' failed; using the client address", e);
            id = null;
        }
        return id != null ? id : cfg.addressResolver().resolve(request);
    }

    /** The path inside the application, as decoded and normalized by the container. */
    static String pathOf(HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        if (path.isEmpty()) {
            String uri = request.getRequestURI() == null ? "" : request.getRequestURI();
            String context = request.getContextPath() == null ? "" : request.getContextPath();
            path = uri.startsWith(context) ? uri.substring(context.length()) : uri;
        }
        return path.isEmpty() ? "/" : path;
    }

    /** Closes every limiter this filter created; the {@link RateLimiters} stay open. */
    @Override
    public void destroy() {
        Map<String, PartitionedRateLimiter<String>> created = limiters;
        limiters = Map.of();
        created.values().forEach(PartitionedRateLimiter::close);
    }

    /**
     * Registers the release listener the moment the application goes asynchronous, so no other thread
     * can complete the request before the listener is in place.
     */
    private static final class LeaseHoldingRequest extends HttpServletRequestWrapper {
        private final Release release;
        private volatile boolean registered;

        LeaseHoldingRequest(HttpServletRequest request, List<Lease> leases) {
            super(request);
            this.release = new Release(leases);
        }

        @Override
        public AsyncContext startAsync() {
            AsyncContext context = super.startAsync();
            register(context);
            return context;
        }

        @Override
        public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
            AsyncContext context = super.startAsync(request, response);
            register(context);
            return context;
        }

        private void register(AsyncContext context) {
            context.addListener(release);
            registered = true;
        }

        /** After the chain returned asynchronous: true if the listener will release the lease. */
        boolean releaseOnAsyncEnd(AsyncContext context) {
            if (registered) {
                return true;
            }
            try { // the application started async on the unwrapped request
                register(context);
                return true;
            } catch (IllegalStateException alreadyCompleted) {
                return false;
            }
        }
    }

    /** Releases leases when an asynchronous request ends; stays registered if async is started again. */
    private static final class Release implements AsyncListener {
        private final List<Lease> leases;

        Release(List<Lease> leases) {
            this.leases = leases;
        }

        @Override public void onComplete(AsyncEvent event) { leases.forEach(Lease::close); }
        @Override public void onError(AsyncEvent event) { leases.forEach(Lease::close); }
        @Override public void onTimeout(AsyncEvent event) { leases.forEach(Lease::close); }

        @Override
        public void onStartAsync(AsyncEvent event) {
            event.getAsyncContext().addListener(this);
        }
    }

    /** One policy's counts in this filter. */
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
