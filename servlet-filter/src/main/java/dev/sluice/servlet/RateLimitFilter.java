package dev.sluice.servlet;

import dev.sluice.limiter.DecisionUnavailableException;
import dev.sluice.limiter.Keys;
import dev.sluice.limiter.Lease;
import dev.sluice.limiter.LimitSpec;
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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * A Jakarta Servlet filter that rate-limits requests per client with Sluice. Thread-safe.
 *
 * <p>For each request dispatched from the client ({@link DispatcherType#REQUEST}; forwards, includes,
 * async and error dispatches pass through), the first {@link Route} that matches its method and path
 * names the {@link RateLimitPolicy}; a request no route matches passes through without touching the
 * store. The client is identified by {@link RateLimitFilterConfig#identityResolver()} (by default the
 * {@code X-Api-Key} header, else the address), hashed with {@link Keys#sha256(String)}, and takes the
 * route's cost from its own budget:
 * <ul>
 *   <li>granted: the request proceeds with {@code RateLimit-Policy} and {@code RateLimit} headers;
 *   <li>refused: {@code 429} with {@code Retry-After} (whole seconds, rounded up, at least 1) and an
 *       {@code application/problem+json} body;
 *   <li>no decision from the store: the policy's failure mode decides ({@code ALLOW} by default here),
 *       marked {@code RateLimit-Degraded: true}; under {@code THROW}, {@code 503} with a problem body.
 * </ul>
 * A concurrency policy holds its lease while the request runs, also while it is asynchronous, and
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
    private volatile ClientIdentityResolver fallback;

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
        try {
            for (RateLimitPolicy p : cfg.policies().values()) {
                created.put(p.name(), rateLimiters.partitioned(p.name(), p.spec(), p.options()));
            }
        } catch (RuntimeException e) {
            created.values().forEach(PartitionedRateLimiter::close);
            throw e;
        }
        this.fallback = ClientIdentityResolver.address(cfg.trustedProxies());
        this.limiters = Collections.unmodifiableMap(created);
        this.config = cfg;
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
        Route route = cfg.match(request.getMethod(), pathOf(request));
        if (route == null) {
            chain.doFilter(req, res);
            return;
        }
        RateLimitPolicy policy = cfg.policies().get(route.policy());
        PartitionedRateLimiter<String> limiter = limiters.get(route.policy());
        String partition = Keys.sha256(identify(cfg, request));
        Lease lease;
        try {
            lease = limiter.tryAcquire(partition, route.cost());
        } catch (DecisionUnavailableException e) {
            LOG.log(Level.WARNING, "no rate-limit decision for policy ''{0}'': {1}", policy.name(), e.getMessage());
            Responses.unavailable(response, policy, cfg.problemType());
            return;
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "rate-limit decision for policy '" + policy.name() + "' failed", e);
            Responses.unavailable(response, policy, cfg.problemType());
            return;
        }
        if (!lease.isAcquired()) {
            Responses.tooManyRequests(response, policy, lease, cfg.legacyHeaders(), cfg.problemType());
            return;
        }
        Responses.rateLimitHeaders(response, policy, lease, cfg.legacyHeaders());
        if (!(policy.spec() instanceof LimitSpec.Concurrency) || lease.isDegraded()) {
            chain.doFilter(request, response);
            return;
        }
        holdDuring(lease, request, response, chain);
    }

    /** Runs the chain holding a concurrency lease; releases it when the request ends, however it ends. */
    private static void holdDuring(Lease lease, HttpServletRequest request, HttpServletResponse response,
            FilterChain chain) throws IOException, ServletException {
        LeaseHoldingRequest wrapped = new LeaseHoldingRequest(request, lease);
        boolean handedOver = false;
        try {
            chain.doFilter(wrapped, response);
            if (request.isAsyncStarted()) {
                handedOver = wrapped.releaseOnAsyncEnd(request.getAsyncContext());
            }
        } finally {
            if (!handedOver) {
                lease.close();
            }
        }
    }

    private String identify(RateLimitFilterConfig cfg, HttpServletRequest request) {
        String id = cfg.identityResolver().resolve(request);
        if (id == null) {
            id = fallback.resolve(request);
        }
        return id != null ? id : "ip:unknown";
    }

    /** The path inside the application, as decoded and normalized by the container. */
    static String pathOf(HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        if (path.isEmpty()) {
            String uri = request.getRequestURI();
            String context = request.getContextPath();
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

        LeaseHoldingRequest(HttpServletRequest request, Lease lease) {
            super(request);
            this.release = new Release(lease);
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

    /** Releases a lease when an asynchronous request ends; stays registered if async is started again. */
    private static final class Release implements AsyncListener {
        private final Lease lease;

        Release(Lease lease) {
            this.lease = lease;
        }

        @Override public void onComplete(AsyncEvent event) { lease.close(); }
        @Override public void onError(AsyncEvent event) { lease.close(); }
        @Override public void onTimeout(AsyncEvent event) { lease.close(); }

        @Override
        public void onStartAsync(AsyncEvent event) {
            event.getAsyncContext().addListener(this);
        }
    }
}
