package dev.sluice.servlet;

import dev.sluice.http.HttpDecision;
import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.PolicyStatistics;
import dev.sluice.http.HttpRateLimiterConfig;
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
import java.io.OutputStream;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * A Jakarta Servlet filter that rate-limits requests per client with Sluice: an adapter of the servlet API
 * to {@link HttpRateLimiter}, which holds the rules (routes, identity, several policies, shadow mode, headers,
 * 429 and 503). Thread-safe.
 *
 * <p>Only requests dispatched from the client ({@link DispatcherType#REQUEST}) are decided; forwards,
 * includes, async and error dispatches pass through. A concurrency policy holds its lease while the request
 * runs, also while it is asynchronous, and releases it when the request completes, fails or times out.
 *
 * <p>Use it from code with {@link #RateLimitFilter(RateLimiters, HttpRateLimiterConfig)}, or declare it
 * in {@code web.xml}/with {@code @WebFilter}: the no-argument form takes the {@link RateLimiters} from the
 * servlet context attribute {@link #RATE_LIMITERS_ATTRIBUTE} and its configuration from the filter's
 * {@code sluice.*} init parameters (see {@link HttpRateLimiterConfig}), or from a
 * {@link HttpRateLimiterConfig} in the context attribute {@link #CONFIG_ATTRIBUTE}. The filter never
 * closes the {@link RateLimiters}; {@link #destroy()} closes the limiters it created.
 */
public final class RateLimitFilter implements Filter {
    /** The servlet context attribute holding the {@link RateLimiters} for the no-argument form. */
    public static final String RATE_LIMITERS_ATTRIBUTE = RateLimiters.class.getName();

    /** The servlet context attribute that may hold the {@link HttpRateLimiterConfig} for the no-argument form. */
    public static final String CONFIG_ATTRIBUTE = HttpRateLimiterConfig.class.getName();

    /**
     * The request attribute that, when set, holds the peer address (a {@code String}) as the connector saw it,
     * for containers that rewrite {@code getRemoteAddr()} themselves before any filter runs (Tomcat's
     * {@code RemoteIpValve}): a server component running before that rewrite records it (the Spring Boot
     * starter registers such a valve on Tomcat). Clients cannot set request attributes.
     */
    public static final String PEER_ADDRESS_ATTRIBUTE = "dev.sluice.servlet.peer-address";

    /**
     * The request attribute that, when set with {@link #PEER_ADDRESS_ATTRIBUTE}, holds the
     * {@code X-Forwarded-For} and {@code Forwarded} header lines as the connector received them: a
     * {@code Map} from the lower-case header name to the {@code List} of its lines (a rewriting container
     * trims what it consumed).
     */
    public static final String FORWARDING_HEADERS_ATTRIBUTE = "dev.sluice.servlet.forwarding-headers";

    private volatile HttpRateLimiter rateLimiter;

    /** A filter configured in {@link #init(FilterConfig)} from the servlet context and init parameters. */
    public RateLimitFilter() {}

    /**
     * A filter that enforces {@code config} on {@code limiters}; it creates one partitioned limiter per
     * policy at once.
     *
     * @throws IllegalArgumentException if a policy is not accepted by {@code limiters}
     */
    public RateLimitFilter(RateLimiters limiters, HttpRateLimiterConfig config) {
        this(new HttpRateLimiter(Objects.requireNonNull(limiters, "limiters"), Objects.requireNonNull(config, "config")));
    }

    /**
     * A filter that answers as {@code rateLimiter} decides, sharing its limiters (and their budgets and
     * statistics) with whoever else uses it; {@link #destroy()} closes it.
     */
    public RateLimitFilter(HttpRateLimiter rateLimiter) {
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
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
        if (rateLimiter != null) {
            return;
        }
        Object limitersAttribute = filterConfig.getServletContext().getAttribute(RATE_LIMITERS_ATTRIBUTE);
        if (!(limitersAttribute instanceof RateLimiters rateLimiters)) {
            throw new ServletException("rate-limit filter '" + filterConfig.getFilterName()
                    + "' needs a RateLimiters in the servlet context attribute " + RATE_LIMITERS_ATTRIBUTE
                    + ", found " + limitersAttribute);
        }
        HttpRateLimiterConfig cfg;
        Object configAttribute = filterConfig.getServletContext().getAttribute(CONFIG_ATTRIBUTE);
        if (configAttribute instanceof HttpRateLimiterConfig c) {
            cfg = c;
        } else {
            Properties properties = new Properties();
            for (String name : Collections.list(filterConfig.getInitParameterNames())) {
                properties.setProperty(name, filterConfig.getInitParameter(name));
            }
            try {
                cfg = HttpRateLimiterConfig.fromProperties(properties);
            } catch (IllegalArgumentException e) {
                throw new ServletException("rate-limit filter '" + filterConfig.getFilterName()
                        + "' has an invalid configuration: " + e.getMessage(), e);
            }
        }
        try {
            rateLimiter = new HttpRateLimiter(rateLimiters, cfg);
        } catch (RuntimeException e) {
            throw new ServletException("rate-limit filter '" + filterConfig.getFilterName() + "' could not start: "
                    + e.getMessage(), e);
        }
    }

    /** The configuration in force, or null before {@link #init(FilterConfig)}. */
    public HttpRateLimiterConfig config() {
        HttpRateLimiter r = rateLimiter;
        return r == null ? null : r.config();
    }

    /**
     * What this filter made of each policy's decisions since it started, by policy name in configuration
     * order (see {@link PolicyStatistics}); empty before {@link #init(FilterConfig)}. The limiters' own
     * {@link PartitionedRateLimiter#statistics()} count a shadow policy's refusals as refusals: the limiter
     * did refuse, and only the filter let the request through.
     */
    public Map<String, PolicyStatistics> statistics() {
        HttpRateLimiter r = rateLimiter;
        return r == null ? Map.of() : r.statistics();
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpRateLimiter r = rateLimiter;
        if (r == null) {
            throw new IllegalStateException("rate-limit filter used before init()");
        }
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)
                || request.getDispatcherType() != DispatcherType.REQUEST) {
            chain.doFilter(req, res);
            return;
        }
        HttpDecision decision = r.decide(new ServletRequestView(request));
        if (!decision.limited()) {
            chain.doFilter(req, res);
            return;
        }
        for (Map.Entry<String, String> h : decision.headers()) {
            response.setHeader(h.getKey(), h.getValue());
        }
        if (!decision.proceeds()) {
            byte[] body = decision.body();
            response.setStatus(decision.status());
            response.setContentType(HttpDecision.PROBLEM_CONTENT_TYPE);
            response.setContentLength(body.length);
            try (OutputStream out = response.getOutputStream()) {
                out.write(body);
            }
            return;
        }
        if (decision.heldLeases().isEmpty() && !decision.settlesFromResponse()) {
            chain.doFilter(request, response);
            return;
        }
        holdDuring(decision, request, response, chain);
    }

    /**
     * Runs the chain holding concurrency leases; releases them when the request ends, however it ends, and settles
     * the policies that settle from the response once its status is known: when the chain returns, or for an
     * asynchronous request when it completes. A chain that throws is settled as a 500, which the container answers.
     */
    private static void holdDuring(HttpDecision decision, HttpServletRequest request, HttpServletResponse response,
            FilterChain chain) throws IOException, ServletException {
        LeaseHoldingRequest wrapped = new LeaseHoldingRequest(request, decision, response);
        boolean handedOver = false;
        boolean failed = true;
        try {
            chain.doFilter(wrapped, response);
            failed = false;
            if (request.isAsyncStarted()) {
                handedOver = wrapped.releaseOnAsyncEnd(request.getAsyncContext());
            }
        } finally {
            if (!handedOver) {
                decision.release();
                decision.settle(failed ? HttpServletResponse.SC_INTERNAL_SERVER_ERROR : response.getStatus(),
                        response::getHeader);
            }
        }
    }

    /** Closes every limiter this filter created; the {@link RateLimiters} stay open. */
    @Override
    public void destroy() {
        HttpRateLimiter r = rateLimiter;
        if (r != null) {
            r.close();
        }
    }

    /**
     * Registers the release listener the moment the application goes asynchronous, so no other thread
     * can complete the request before the listener is in place.
     */
    private static final class LeaseHoldingRequest extends HttpServletRequestWrapper {
        private final Release release;
        private volatile boolean registered;

        LeaseHoldingRequest(HttpServletRequest request, HttpDecision decision, HttpServletResponse response) {
            super(request);
            this.release = new Release(decision, response);
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

    /**
     * Releases leases when an asynchronous request ends, and settles from the response when it completes (after a
     * timeout or an error too, which the container answers before completing); stays registered if async is started
     * again.
     */
    private static final class Release implements AsyncListener {
        private final HttpDecision decision;
        private final HttpServletResponse response;

        Release(HttpDecision decision, HttpServletResponse response) {
            this.decision = decision;
            this.response = response;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            decision.release();
            HttpServletResponse completed = event.getSuppliedResponse() instanceof HttpServletResponse r ? r : response;
            decision.settle(completed.getStatus(), completed::getHeader);
        }

        @Override public void onError(AsyncEvent event) { decision.release(); }
        @Override public void onTimeout(AsyncEvent event) { decision.release(); }

        @Override
        public void onStartAsync(AsyncEvent event) {
            event.getAsyncContext().addListener(this);
        }
    }
}
