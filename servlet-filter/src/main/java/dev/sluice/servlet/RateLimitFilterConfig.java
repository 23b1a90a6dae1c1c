package dev.sluice.servlet;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * What {@link RateLimitFilter} enforces and how it answers: policies, the routes they apply to, how
 * clients are identified, and which headers are sent. Immutable and validated when built; build it in
 * code with {@link #builder()} or from {@link Properties} with {@link #fromProperties(Properties)}.
 *
 * <p>Properties (every key under {@code sluice.}; an unknown key is an error, so typos do not pass
 * silently):
 * <pre>
 * sluice.policies.login.algorithm=sliding-log      # fixed-window|sliding-window|sliding-log|sliding-counter|token-bucket|gcra|concurrency
 * sluice.policies.login.permit-limit=10            # the limit: permits per window, bucket size, concurrent permits
 * sluice.policies.login.window=PT1M                # ISO-8601; window algorithms, and gcra's period
 * sluice.policies.api.segments=6                   # sliding-window
 * sluice.policies.api.tokens-per-period=5          # token-bucket
 * sluice.policies.api.replenishment-period=PT1S    # token-bucket
 * sluice.policies.api.burst=20                     # gcra
 * sluice.policies.upload.lease-duration=PT30S      # concurrency (default PT30S)
 * sluice.policies.login.queue-limit=0              # optional, default 0
 * sluice.policies.login.failure-mode=allow         # optional: allow (default) | deny | throw
 * sluice.policies.login.decision-timeout=PT1S      # optional, default PT1S
 * sluice.routes.1.pattern=/login                   # an exact path or a prefix such as /api/*
 * sluice.routes.1.methods=POST                     # optional, default every method
 * sluice.routes.1.policy=login
 * sluice.routes.1.cost=1                           # optional, default 1
 * sluice.client.api-key-header=X-Api-Key           # optional; empty to identify by address only
 * sluice.client.trusted-proxies=10.0.0.0/8,::1     # optional; X-Forwarded-For is believed only from these
 * sluice.headers.legacy=false                      # optional; also send RateLimit-Limit/-Remaining/-Reset
 * sluice.problem.type=about:blank                  # optional; the "type" of problem bodies
 * </pre>
 * Routes are tried in the order of their ids (numerically when numeric); the first that matches applies.
 */
public final class RateLimitFilterConfig {
    private final Map<String, RateLimitPolicy> policies;
    private final List<Route> routes;
    private final ClientIdentityResolver identityResolver;
    private final TrustedProxies trustedProxies;
    private final boolean legacyHeaders;
    private final URI problemType;

    private RateLimitFilterConfig(Builder b) {
        this.policies = Collections.unmodifiableMap(new LinkedHashMap<>(b.policies));
        this.routes = List.copyOf(b.routes);
        this.trustedProxies = b.trustedProxies;
        this.identityResolver = b.identityResolver != null ? b.identityResolver
                : b.apiKeyHeader == null ? ClientIdentityResolver.address(b.trustedProxies)
                : ClientIdentityResolver.firstOf(ClientIdentityResolver.apiKey(b.apiKeyHeader),
                        ClientIdentityResolver.address(b.trustedProxies));
        this.legacyHeaders = b.legacyHeaders;
        this.problemType = b.problemType;
    }

    /** An empty builder: no policies, no routes, the default identity and headers. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A configuration read from properties (see the class comment).
     *
     * @throws IllegalArgumentException naming the property, its value and what is allowed
     */
    public static RateLimitFilterConfig fromProperties(Properties properties) {
        return builder().properties(properties).build();
    }

    /** Policies by name, in the order they were added. */
    public Map<String, RateLimitPolicy> policies() { return policies; }

    /** Routes in matching order: the first that matches a request applies. */
    public List<Route> routes() { return routes; }

    /** Identifies clients; its identifiers are hashed before use. */
    public ClientIdentityResolver identityResolver() { return identityResolver; }

    /** The proxies whose {@code X-Forwarded-For} is believed, also for the fallback address. */
    public TrustedProxies trustedProxies() { return trustedProxies; }

    /** True if responses also carry {@code RateLimit-Limit}, {@code RateLimit-Remaining}, {@code RateLimit-Reset}. */
    public boolean legacyHeaders() { return legacyHeaders; }

    /** The {@code type} member of problem bodies. */
    public URI problemType() { return problemType; }

    /** The first route matching a request, or null if the request is not protected. */
    Route match(String method, String path) {
        for (Route r : routes) {
            if (r.matches(method, path)) {
                return r;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "RateLimitFilterConfig[policies=" + policies.keySet() + ", routes=" + routes + ", trustedProxies="
                + trustedProxies + ", legacyHeaders=" + legacyHeaders + "]";
    }

    /** Builds a {@link RateLimitFilterConfig}. Not thread-safe. */
    public static final class Builder {
        private final Map<String, RateLimitPolicy> policies = new LinkedHashMap<>();
        private final List<Route> routes = new ArrayList<>();
        private String apiKeyHeader = ClientIdentityResolver.DEFAULT_API_KEY_HEADER;
        private TrustedProxies trustedProxies = TrustedProxies.none();
        private ClientIdentityResolver identityResolver;
        private boolean legacyHeaders;
        private URI problemType = URI.create("about:blank");

        private Builder() {}

        /**
         * Adds a policy.
         *
         * @throws IllegalArgumentException if a policy of that name was already added
         */
        public Builder policy(RateLimitPolicy policy) {
            Objects.requireNonNull(policy, "policy");
            if (policies.putIfAbsent(policy.name(), policy) != null) {
                throw new IllegalArgumentException("policy '" + policy.name() + "' was already added");
            }
            return this;
        }

        /** Adds a policy with {@link RateLimitPolicy#EDGE_DEFAULTS} (fail open). */
        public Builder policy(String name, LimitSpec spec) {
            return policy(RateLimitPolicy.of(name, spec));
        }

        /** Adds a policy with the given options. */
        public Builder policy(String name, LimitSpec spec, LimiterOptions options) {
            return policy(new RateLimitPolicy(name, spec, options));
        }

        /** Adds a route after those already added; its policy must be added before {@link #build()}. */
        public Builder route(Route route) {
            routes.add(Objects.requireNonNull(route, "route"));
            return this;
        }

        /** Adds {@link Route#of(String, String)}: every method, cost 1. */
        public Builder route(String pattern, String policy) {
            return route(Route.of(pattern, policy));
        }

        /**
         * The header that carries an API key; default {@value ClientIdentityResolver#DEFAULT_API_KEY_HEADER}.
         * {@code null} identifies clients by address only. Ignored when {@link #identityResolver} is set.
         */
        public Builder apiKeyHeader(String header) {
            if (header != null && header.isBlank()) {
                throw new IllegalArgumentException("API key header name must not be blank, was '" + header + "'");
            }
            this.apiKeyHeader = header;
            return this;
        }

        /** The proxies whose {@code X-Forwarded-For} is believed; default none. */
        public Builder trustedProxies(TrustedProxies proxies) {
            this.trustedProxies = Objects.requireNonNull(proxies, "proxies");
            return this;
        }

        /** As {@link TrustedProxies#of(String...)}. */
        public Builder trustedProxies(String... addressesOrRanges) {
            return trustedProxies(TrustedProxies.of(addressesOrRanges));
        }

        /**
         * Replaces the default identity (API key header, else address). When it answers {@code null}, the
         * client address (honouring {@link #trustedProxies}) is used.
         */
        public Builder identityResolver(ClientIdentityResolver resolver) {
            this.identityResolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /** Also send {@code RateLimit-Limit}, {@code RateLimit-Remaining} and {@code RateLimit-Reset}; default false. */
        public Builder legacyHeaders(boolean enabled) {
            this.legacyHeaders = enabled;
            return this;
        }

        /** The {@code type} member of problem bodies; default {@code about:blank}. */
        public Builder problemType(URI type) {
            this.problemType = Objects.requireNonNull(type, "type");
            return this;
        }

        /**
         * Adds the policies, routes and settings in {@code properties} (see {@link RateLimitFilterConfig}).
         * Keys outside {@code sluice.} are ignored.
         *
         * @throws IllegalArgumentException naming the property, its value and what is allowed
         */
        public Builder properties(Properties properties) {
            PropertiesReader.read(Objects.requireNonNull(properties, "properties"), this);
            return this;
        }

        /**
         * Builds the configuration.
         *
         * @throws IllegalArgumentException if a route names an unknown policy or costs more than its limit
         */
        public RateLimitFilterConfig build() {
            for (Route r : routes) {
                RateLimitPolicy p = policies.get(r.policy());
                if (p == null) {
                    throw new IllegalArgumentException("route " + r.pattern() + " names policy '" + r.policy()
                            + "', which is not defined; defined policies: " + policies.keySet());
                }
                if (r.cost() > p.spec().limit()) {
                    throw new IllegalArgumentException("route " + r.pattern() + " costs " + r.cost()
                            + " permits, more than the limit " + p.spec().limit() + " of policy '" + p.name() + "'");
                }
            }
            return new RateLimitFilterConfig(this);
        }
    }
}
