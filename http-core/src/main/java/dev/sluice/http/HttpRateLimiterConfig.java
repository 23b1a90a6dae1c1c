package dev.sluice.http;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.DecisionListener;
import dev.sluice.limiter.DecisionResult;
import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.LimiterOptions;
import dev.sluice.limiter.Plans;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;

/**
 * What {@link HttpRateLimiter} enforces, behind any server's adapter, and how it answers: policies, the
 * routes they apply to, how clients are identified, and which headers are sent. Immutable and validated when built; build it in
 * code with {@link #builder()}, from typed {@link SluiceSettings} with {@link #from(SluiceSettings)} (what Spring
 * Boot's binder fills), or from {@link Properties} with {@link #fromProperties(Properties)}.
 *
 * <p>Properties (every key under {@code sluice.}; an unknown key is an error, so typos do not pass
 * silently) are the settings of {@link SluiceSettings}, named in kebab case; the module's README has the
 * reference table, with each default and what is allowed:
 * <pre>
 * sluice.policies.login.algorithm=sliding-log
 * sluice.policies.login.permit-limit=10
 * sluice.policies.login.window=1m
 * sluice.routes.1.pattern=/login
 * sluice.routes.1.methods=POST
 * sluice.routes.1.policy=login
 * </pre>
 *
 * <p>The {@code sluice.capacity.*} settings give the {@link #capacity()} of the store the limiters are created
 * on: the filter itself holds no state, so pass it to the backend ({@code LocalRateLimiters.create(clock,
 * config.capacity())}, {@code SluiceHazelcast.configure(config, mapName, capacity)},
 * {@code JCacheRateLimiters.createCache(manager, name, lifetime, capacity)}); the Spring Boot starter does.
 *
 * <p>Every route that matches a request applies; each policy at most once per request, with the cost
 * of the most specific matching route that names it. Routes are tried most specific first, whatever the
 * order they were added in (or their ids): the longer literal part first (the pattern without its
 * trailing {@code /*}), then an exact path before a prefix with the same literal part; two routes of equal
 * specificity whose methods overlap fail {@link Builder#build()}. Policies apply in that order.
 */
public final class HttpRateLimiterConfig {
    /** The problem type of a 429 answer by default: draft-ietf-httpapi-ratelimit-headers' quota-exceeded. */
    public static final URI QUOTA_EXCEEDED = URI.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

    /** How many refused requests {@link HttpRateLimiter#refusals()} keeps by default. */
    public static final int DEFAULT_REFUSAL_TRACE = 100;

    /** The most refused requests {@link HttpRateLimiter#refusals()} can keep. */
    public static final int MAX_REFUSAL_TRACE = 100_000;

    /** The problem type of a 503 answer: draft-ietf-httpapi-ratelimit-headers' temporary-reduced-capacity. */
    public static final URI TEMPORARY_REDUCED_CAPACITY =
            URI.create("https://iana.org/assignments/http-problem-types#temporary-reduced-capacity");

    private final Map<String, RateLimitPolicy> policies;
    private final List<Route> routes;
    private final boolean overridesMatter;
    private final ClientIdentityResolver identityResolver;
    private final ClientIdentityResolver addressResolver;
    private final TrustedProxies trustedProxies;
    private final int ipv6Prefix;
    private final boolean strictMatching;
    private final boolean shadow;
    private final boolean headers;
    private final boolean partitionKeys;
    private final boolean legacyHeaders;
    private final URI problemType;
    private final boolean problemDecisions;
    private final int refusalTrace;
    private final Capacity capacity;
    private final IdentityKeys identityKeys;
    private final Map<String, ResponseCost> responseCosts;
    private final Map<String, PolicyPlans> plans;

    private HttpRateLimiterConfig(Builder b, Map<String, RateLimitPolicy> policies,
            ClientIdentityResolver identityResolver, ClientIdentityResolver addressResolver) {
        this.policies = Collections.unmodifiableMap(policies);
        this.routes = ordered(b.routes, b.strictMatching);
        boolean overridable = false;
        for (Route r : routes) {
            overridable |= !r.methods().isEmpty() && !r.methods().contains("POST");
        }
        this.overridesMatter = overridable;
        this.identityResolver = identityResolver;
        this.addressResolver = addressResolver;
        this.trustedProxies = b.trustedProxies;
        this.ipv6Prefix = b.ipv6Prefix;
        this.strictMatching = b.strictMatching;
        this.shadow = b.shadow;
        this.headers = b.headers;
        this.partitionKeys = b.partitionKeys;
        this.legacyHeaders = b.legacyHeaders;
        this.problemType = b.problemType;
        this.problemDecisions = b.problemDecisions;
        this.refusalTrace = b.refusalTrace;
        this.capacity = b.capacity;
        this.identityKeys = b.identityKeys;
        this.responseCosts = Collections.unmodifiableMap(new LinkedHashMap<>(b.responseCosts));
        this.plans = Collections.unmodifiableMap(b.resolvedPlans);
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
    public static HttpRateLimiterConfig fromProperties(Properties properties) {
        return builder().properties(properties).build();
    }

    /**
     * A configuration built from typed settings, with the same rules and messages as {@link #fromProperties}.
     *
     * @throws IllegalArgumentException naming the property, its value and what is allowed
     */
    public static HttpRateLimiterConfig from(SluiceSettings settings) {
        return builder().settings(settings).build();
    }

    /**
     * Whether client identities are stored under a keyed hash ({@code sluice.client.identity-secret}, or the
     * environment variable {@code SLUICE_IDENTITY_SECRET}); without one they are stored as plain SHA-256, which
     * anyone who can read the store can reverse by trying addresses.
     */
    public boolean identitiesKeyed() { return identityKeys.keyed(); }

    /** How identities become partitions, and the secret's fingerprint. */
    IdentityKeys identityKeys() { return identityKeys; }

    /** Policies by name, in the order they were added; each with its identity, if it has its own. */
    public Map<String, RateLimitPolicy> policies() { return policies; }

    /**
     * The policies whose grants the response settles, by name ({@link ResponseCost}; {@code count-statuses},
     * {@code cost-header}).
     */
    public Map<String, ResponseCost> responseCosts() { return responseCosts; }

    /**
     * Routes in the order they are tried, the most specific first (see {@link Builder#route(Route)}); every one
     * that matches a request applies, and each policy with the cost of the first that names it.
     */
    public List<Route> routes() { return routes; }

    /** Identifies clients for policies without an identity of their own; its identifiers are hashed before use. */
    public ClientIdentityResolver identityResolver() { return identityResolver; }

    /** The proxies whose {@code X-Forwarded-For} is believed, also for the fallback address. */
    public TrustedProxies trustedProxies() { return trustedProxies; }

    /** The prefix length by which IPv6 client addresses are grouped. */
    public int ipv6Prefix() { return ipv6Prefix; }

    /** True if paths are compared exactly as the container decoded them, false if canonically (the default). */
    public boolean strictMatching() { return strictMatching; }

    /** True if every policy is in shadow mode: decided and counted, never refusing. */
    public boolean shadow() { return shadow; }

    /** True if responses carry the {@code RateLimit-Policy} and {@code RateLimit} headers (the default). */
    public boolean headers() { return headers; }

    /** True if the headers carry {@code pk}, the hashed client identity of each policy. */
    public boolean partitionKeys() { return partitionKeys; }

    /** True if responses also carry {@code RateLimit-Limit}, {@code RateLimit-Remaining}, {@code RateLimit-Reset}. */
    public boolean legacyHeaders() { return legacyHeaders; }

    /** The {@code type} member of 429 problem bodies. */
    public URI problemType() { return problemType; }

    /**
     * True if 429 problem bodies carry {@code refused-by}: each refusing policy's name, key hash, remaining, limit,
     * reset and retry-after (see {@link Builder#problemDecisions(boolean)}).
     */
    public boolean problemDecisions() { return problemDecisions; }

    /** How many refused requests {@link HttpRateLimiter#refusals()} keeps; 0 keeps none. */
    public int refusalTrace() { return refusalTrace; }

    /** The bound of the store to create the limiters on (default {@link Capacity#defaults()}). */
    public Capacity capacity() { return capacity; }

    /**
     * True if a {@code POST}'s method override could change which routes apply: matching is canonical and some
     * route is limited to methods that do not include {@code POST}. Only then is the {@code _method} parameter
     * read, a form body's included.
     */
    public boolean overridesMatter() { return overridesMatter && !strictMatching; }

    /** The literal part of a route as it is compared: canonical, or as written under strict matching. */
    private static String base(Route r, boolean strict) {
        return r.comparedBase(strict);
    }

    /**
     * The routes, most specific first: the longer literal part, then an exact path before a prefix; the order
     * they were added never matters, so a broad route cannot shadow a narrow one's cost.
     *
     * @throws IllegalArgumentException for two routes of equal specificity whose methods overlap
     */
    private static List<Route> ordered(List<Route> added, boolean strict) {
        List<Route> sorted = new ArrayList<>(added);
        sorted.sort(java.util.Comparator.comparingInt((Route r) -> r.pattern().equals("/*") ? -1
                : base(r, strict).length()).reversed().thenComparing(r -> r.pattern().endsWith("/*")));
        for (int i = 1; i < sorted.size(); i++) {
            for (int j = i - 1; j >= 0; j--) {
                Route a = sorted.get(j);
                Route b = sorted.get(i);
                boolean samePlace = a.pattern().endsWith("/*") == b.pattern().endsWith("/*")
                        && base(a, strict).equals(base(b, strict));
                boolean overlap = a.methods().isEmpty() || b.methods().isEmpty()
                        || a.methods().stream().anyMatch(b.methods()::contains);
                if (samePlace && overlap) {
                    throw new IllegalArgumentException("routes " + a.pattern() + " " + describe(a) + " and "
                            + b.pattern() + " " + describe(b) + " match the same requests with equal specificity,"
                            + " so neither order could be the right one; merge them into one route (one pattern,"
                            + " several policies) or give them methods that do not overlap");
                }
            }
        }
        return List.copyOf(sorted);
    }

    private static String describe(Route r) {
        return (r.methods().isEmpty() ? "(every method" : "(" + String.join(",", r.methods())) + ", policies "
                + r.policies() + ", cost " + r.cost() + ")";
    }

    /** The client address by this configuration's rules: the identity when another answers null. */
    ClientIdentityResolver addressResolver() { return addressResolver; }

    /**
     * The plans of each policy whose limit is chosen per client from its plan, by policy name; such a policy's
     * {@link RateLimitPolicy#spec()} is {@link Plans#primarySpec()}.
     */
    public Map<String, Plans> plans() {
        Map<String, Plans> byPolicy = new LinkedHashMap<>();
        plans.forEach((policy, p) -> byPolicy.put(policy, p.plans()));
        return Collections.unmodifiableMap(byPolicy);
    }

    /** How {@code policy} reads a client's plan ({@code claim:plan}, {@code header:X-Plan}, {@code bean}), or null. */
    public String planSource(String policy) {
        PolicyPlans p = plans.get(policy);
        return p == null ? null : p.source();
    }

    /** The plans of {@code policy} at the edge, or null for a policy without plans. */
    PolicyPlans policyPlans(String policy) {
        return plans.get(policy);
    }

    /** The plan a decision's policy was decided under, or null when it was not one plan's (no plans, unknown plan). */
    String planOf(RateLimitPolicy policy) {
        PolicyPlans p = plans.get(policy.name());
        return p == null ? null : p.planOf(policy);
    }

    @Override
    public String toString() {
        return "HttpRateLimiterConfig[policies=" + policies.keySet() + ", routes=" + routes + ", trustedProxies="
                + trustedProxies + ", ipv6Prefix=" + ipv6Prefix + ", strictMatching=" + strictMatching + ", shadow="
                + shadow + ", headers=" + headers + ", partitionKeys=" + partitionKeys + ", legacyHeaders="
                + legacyHeaders + ", problemDecisions=" + problemDecisions + ", refusalTrace=" + refusalTrace
                + ", identitiesKeyed=" + identityKeys.keyed() + "]";
    }

    /** Builds a {@link HttpRateLimiterConfig}. Not thread-safe. */
    public static final class Builder {
        private final Map<String, RateLimitPolicy> policies = new LinkedHashMap<>();
        private final List<Route> routes = new ArrayList<>();
        private String apiKeyHeader;
        private TrustedProxies trustedProxies = TrustedProxies.none();
        private int ipv6Prefix = ClientIdentityResolver.DEFAULT_IPV6_PREFIX;
        private ClientIdentityResolver identityResolver;
        private boolean strictMatching;
        private boolean shadow;
        private boolean headers = true;
        private boolean partitionKeys;
        private boolean legacyHeaders;
        private URI problemType = QUOTA_EXCEEDED;
        private boolean problemDecisions;
        private int refusalTrace = DEFAULT_REFUSAL_TRACE;
        private Capacity capacity = Capacity.defaults();
        private final List<DecisionListener> listeners = new ArrayList<>();
        private String identitySecretProperty;
        private String identitySecret;
        private Function<String, String> environment = System::getenv;
        private IdentityKeys identityKeys;
        private final Map<String, PlannedSetting> planned = new LinkedHashMap<>();
        private PlanResolver.Source planSource;
        private Map<String, PolicyPlans> resolvedPlans = Map.of();

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

        /**
         * Adds a route; its policies must be added before {@link #build()}. Routes are tried most specific first
         * (see the class comment), not in the order they are added.
         */
        public Builder route(Route route) {
            routes.add(Objects.requireNonNull(route, "route"));
            return this;
        }

        /** Adds {@link Route#of(String, String, String...)}: every method, cost 1. */
        public Builder route(String pattern, String policy, String... morePolicies) {
            return route(Route.of(pattern, policy, morePolicies));
        }

        /**
         * The header that carries an API key; default none. When set and no {@link #identityResolver} is,
         * clients are identified by this header, else by address. Only for keys that are authenticated
         * before the rate-limit filter runs: an unchecked header lets a client take a new budget per request
         * (see {@link ClientIdentityResolver}).
         *
         * @throws IllegalArgumentException if {@code header} is blank
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
         * The prefix length by which IPv6 client addresses are grouped into one client; default
         * {@value ClientIdentityResolver#DEFAULT_IPV6_PREFIX}, 128 for none.
         *
         * @throws IllegalArgumentException if {@code bits} is not between 1 and 128
         */
        public Builder ipv6Prefix(int bits) {
            if (bits < 1 || bits > 128) {
                throw new IllegalArgumentException("IPv6 prefix must be between 1 and 128 bits, was " + bits);
            }
            this.ipv6Prefix = bits;
            return this;
        }

        /**
         * Replaces the default identity (the client address, or the {@link #apiKeyHeader} if one is set) of
         * policies without their own. When it answers {@code null}, the client address (honouring
         * {@link #trustedProxies} and {@link #ipv6Prefix}) is used.
         */
        public Builder identityResolver(ClientIdentityResolver resolver) {
            this.identityResolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /**
         * Compare request paths exactly as the container decoded them ({@code true}), instead of canonically
         * (default {@code false}: trailing slashes, case, path parameters, surrounding whitespace and a
         * {@code .suffix} do not make another path; see {@link Route}).
         */
        public Builder strictMatching(boolean strict) {
            this.strictMatching = strict;
            return this;
        }

        /**
         * Put every policy in shadow mode ({@link RateLimitPolicy#withShadow(boolean)}): requests are decided,
         * counted and answered with their headers, never refused; default false.
         */
        public Builder shadow(boolean shadow) {
            this.shadow = shadow;
            return this;
        }

        /**
         * Send the {@code RateLimit-Policy} and {@code RateLimit} headers (and {@code RateLimit-Degraded});
         * default true. A refusal still carries {@code Retry-After} and its problem body.
         */
        public Builder headers(boolean enabled) {
            this.headers = enabled;
            return this;
        }

        /**
         * Add {@code pk}, the hash of the client identity each policy counted the request under (the bytes whose
         * base64url is the store's partition), to both headers; default false. The identity itself is never
         * sent; but the hash of a guessable identity (an address, a user name) can be confirmed by whoever
         * guesses it, which is why it is off by default.
         */
        public Builder partitionKeys(boolean enabled) {
            this.partitionKeys = enabled;
            return this;
        }

        /** Also send {@code RateLimit-Limit}, {@code RateLimit-Remaining} and {@code RateLimit-Reset}; default false. */
        public Builder legacyHeaders(boolean enabled) {
            this.legacyHeaders = enabled;
            return this;
        }

        /** The {@code type} member of 429 problem bodies; default {@link #QUOTA_EXCEEDED}. */
        public Builder problemType(URI type) {
            this.problemType = Objects.requireNonNull(type, "type");
            return this;
        }

        /**
         * Add {@code refused-by} to 429 problem bodies: for each refusing policy its name, the digest of the client
         * identity it counted (never the identity), and its remaining, limit, reset and retry-after; default false.
         * It tells a client which policy and key it hit, and lets whoever guesses an identity confirm its hash,
         * which is why it is off by default.
         */
        public Builder problemDecisions(boolean enabled) {
            this.problemDecisions = enabled;
            return this;
        }

        /**
         * How many of the latest refused requests {@link HttpRateLimiter#refusals()} keeps, each with the routes that
         * matched and what every policy decided; default {@value HttpRateLimiterConfig#DEFAULT_REFUSAL_TRACE}, 0 keeps
         * none and records nothing.
         *
         * @throws IllegalArgumentException if {@code requests} is negative or above
         *     {@value HttpRateLimiterConfig#MAX_REFUSAL_TRACE}
         */
        public Builder refusalTrace(int requests) {
            if (requests < 0 || requests > MAX_REFUSAL_TRACE) {
                throw new IllegalArgumentException("refusal trace must be between 0 and " + MAX_REFUSAL_TRACE
                        + " requests, was " + requests);
            }
            this.refusalTrace = requests;
            return this;
        }

        /** The bound of the store the limiters are created on; default {@link Capacity#defaults()}. */
        public Builder capacity(Capacity capacity) {
            this.capacity = Objects.requireNonNull(capacity, "capacity");
            return this;
        }

        /**
         * Adds {@code listener} to the options of every policy, such as a {@code SluiceMetrics} binder for
         * policies read from properties; a shadow policy's listeners hear its would-be refusals as
         * {@link DecisionResult#SHADOW_REFUSED}.
         */
        public Builder listener(DecisionListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Adds the policies, routes and settings in {@code properties} (see {@link HttpRateLimiterConfig}).
         * Keys outside {@code sluice.} are ignored.
         *
         * @throws IllegalArgumentException naming the property, its value and what is allowed
         */
        public Builder properties(Properties properties) {
            Objects.requireNonNull(properties, "properties");
            return settings(PropertiesReader.read(properties), PropertiesReader.written(properties));
        }

        /**
         * Adds the policies, routes and settings of {@code settings} (see {@link SluiceSettings}).
         *
         * @throws IllegalArgumentException naming the property, its value and what is allowed
         */
        public Builder settings(SluiceSettings settings) {
            return settings(settings, property -> null);
        }

        /**
         * As {@link #settings(SluiceSettings)}; {@code written} answers how a property was written (such as the
         * {@code Environment} it was bound from), or null, so that an error quotes the value as the user wrote it.
         *
         * @throws IllegalArgumentException naming the property, its value and what is allowed
         */
        public Builder settings(SluiceSettings settings, java.util.function.Function<String, String> written) {
            SettingsRules.apply(Objects.requireNonNull(settings, "settings"), Objects.requireNonNull(written, "written"),
                    this);
            return this;
        }

        /**
         * Sets the secret that client identities are keyed with (HMAC-SHA256) before they become store keys, so a
         * reader of the store cannot tell which client a key counts; every replica sharing the store must use the
         * same one (checked through the store where it can keep a fingerprint). Default: the environment variable
         * {@code SLUICE_IDENTITY_SECRET}, else none.
         *
         * @throws IllegalArgumentException if the secret is shorter than 16 characters
         */
        public Builder identitySecret(String secret) {
            return identitySecret("identitySecret", secret);
        }

        Builder identitySecret(String property, String secret) {
            Objects.requireNonNull(secret, "secret");
            IdentityKeys.check(property, secret);
            this.identitySecretProperty = property;
            this.identitySecret = secret;
            return this;
        }

        /** Where the environment variable is read (tests). */
        Builder environment(Function<String, String> environment) {
            this.environment = Objects.requireNonNull(environment, "environment");
            return this;
        }

        private final Map<String, ResponseCost> responseCosts = new LinkedHashMap<>();

        /**
         * Settles the grants of {@code policy} from the response, once the request has run, by {@code cost}; the
         * route's cost is the reservation. A concurrency policy holds its permits while the request runs and is not
         * settled.
         *
         * @throws IllegalArgumentException if {@code policy} is already set to settle (checked: defined and a rate
         *     policy, at {@link #build()})
         */
        public Builder responseCost(String policy, ResponseCost cost) {
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(cost, "cost");
            if (responseCosts.putIfAbsent(policy, cost) != null) {
                throw new IllegalArgumentException("policy '" + policy + "' already settles from the response by "
                        + responseCosts.get(policy));
            }
            return this;
        }

        /**
         * Chooses the limit of policy {@code policy} (added before {@link #build()}) per client from its plan:
         * {@code resolver} tells a request's plan, {@code plans} each plan's spec and what a client of an unknown
         * plan gets (the default plan, or {@code 403} with a problem body). The policy's own spec is replaced by
         * {@link Plans#primarySpec()}; each client keeps one budget whatever its plan, so one whose plan changes
         * keeps what it consumed. The {@code RateLimit-Policy} header and the problem body name the plan.
         *
         * @throws IllegalArgumentException if plans were already given for {@code policy}
         */
        public Builder plans(String policy, Plans plans, PlanResolver resolver) {
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(plans, "plans");
            Objects.requireNonNull(resolver, "resolver");
            return planned(policy, new PlannedSetting(plans, resolver, null, null, "resolver"));
        }

        /**
         * Makes the resolvers that {@code plan-from} settings name by kind ({@code claim:}, {@code attribute:},
         * {@code authority:}, {@code bean}); the Spring Boot starter sets one over Spring Security and the
         * application context. Default none: such a setting fails {@link #build()}. {@code header:} needs none.
         */
        public Builder planSource(PlanResolver.Source source) {
            this.planSource = Objects.requireNonNull(source, "source");
            return this;
        }

        /** Plans read from settings: the resolver of {@code kind:name} is made at {@link #build()}. */
        Builder planFrom(String policy, Plans plans, String kind, String name, String property, String written) {
            return planned(policy, new PlannedSetting(plans, null, kind, name, property + "=" + written));
        }

        private Builder planned(String policy, PlannedSetting setting) {
            if (planned.putIfAbsent(policy, setting) != null) {
                throw new IllegalArgumentException("plans of policy '" + policy + "' were already given");
            }
            return this;
        }

        /** Plans as given, before their resolver is made. */
        private record PlannedSetting(Plans plans, PlanResolver resolver, String kind, String name, String shown) {
            /** How the plan is read, as {@code plan-from} writes it. */
            String source() {
                return kind == null ? "resolver" : name == null ? kind : kind + ":" + name;
            }
        }

        /** The plans of each policy with their resolvers; a policy's spec replaced by its plans' primary spec. */
        private Map<String, PolicyPlans> resolvePlans(Map<String, RateLimitPolicy> resolved) {
            Map<String, PolicyPlans> result = new LinkedHashMap<>();
            planned.forEach((policy, setting) -> {
                RateLimitPolicy p = resolved.get(policy);
                if (p == null) {
                    throw new IllegalArgumentException("plans are given for policy '" + policy
                            + "', which is not defined; defined policies: " + resolved.keySet());
                }
                PlanResolver resolver = setting.resolver();
                if (resolver == null && setting.kind().equals("header")) {
                    resolver = PlanResolver.header(setting.name(), trustedProxies);
                } else if (resolver == null) {
                    resolver = planSource == null ? null : planSource.resolver(setting.kind(), setting.name());
                    if (resolver == null) {
                        throw new IllegalArgumentException("invalid property " + setting.shown() + "; plans read from "
                                + setting.kind() + (setting.kind().equals("bean") ? " need a PlanResolver bean"
                                : " need the principal's claims, attributes and authorities, which Spring Security"
                                        + " provides in the Spring Boot starter")
                                + " (in code: HttpRateLimiterConfig.Builder.planSource or plans(policy, plans,"
                                + " resolver))");
                    }
                }
                RateLimitPolicy primary = new RateLimitPolicy(p.name(), setting.plans().primarySpec(), p.options(),
                        p.identity(), p.shadow());
                resolved.put(policy, primary);
                result.put(policy, new PolicyPlans(primary, setting.plans(), resolver, setting.source()));
            });
            return result;
        }

        /**
         * Builds the configuration.
         *
         * @throws IllegalArgumentException if a route names an unknown policy or costs more than the limit
         *     of one of its policies, two routes match the same requests with equal specificity, or an
         *     identity needs an API key header and none is set
         */
        public HttpRateLimiterConfig build() {
            for (Route r : routes) {
                for (String name : r.policies()) {
                    RateLimitPolicy p = policies.get(name);
                    if (p == null) {
                        throw new IllegalArgumentException("route " + r.pattern() + " names policy '" + name
                                + "', which is not defined; defined policies: " + policies.keySet());
                    }
                    PlannedSetting plans = planned.get(name);
                    long limit = plans == null ? p.spec().limit() : plans.plans().smallestLimit();
                    if (r.cost() > limit) {
                        throw new IllegalArgumentException("route " + r.pattern() + " costs " + r.cost()
                                + " permits, more than the " + (plans == null ? "" : "smallest plan's ") + "limit "
                                + limit + " of policy '" + p.name() + "'");
                    }
                }
            }
            for (String name : responseCosts.keySet()) {
                RateLimitPolicy p = policies.get(name);
                if (p == null || p.spec() instanceof LimitSpec.Concurrency) {
                    throw new IllegalArgumentException("policy '" + name + "' cannot settle from the response: "
                            + (p == null ? "it is not defined; defined policies: " + policies.keySet()
                                    : "a concurrency policy holds its permits while the request runs, not a cost"));
                }
            }
            ClientIdentityResolver address = ClientIdentityResolver.address(trustedProxies, ipv6Prefix);
            ClientIdentityResolver identity = identityResolver == null
                    ? (apiKeyHeader == null ? address : ClientIdentityResolver.apiKey(apiKeyHeader))
                    : resolve(identityResolver, address);
            Map<String, RateLimitPolicy> resolved = new LinkedHashMap<>();
            for (RateLimitPolicy p : policies.values()) {
                RateLimitPolicy r = p.identity() == null ? p : p.withIdentity(resolve(p.identity(), address));
                if (!listeners.isEmpty()) {
                    LimiterOptions.Builder options = r.options().toBuilder();
                    listeners.forEach(options::listener);
                    r = new RateLimitPolicy(r.name(), r.spec(), options.build(), r.identity(), r.shadow());
                }
                resolved.put(p.name(), r);
            }
            String secret = identitySecret;
            String property = identitySecretProperty;
            if (secret == null) {
                secret = environment.apply(IdentityKeys.ENVIRONMENT);
                property = "environment variable " + IdentityKeys.ENVIRONMENT;
                if (secret != null && secret.isEmpty()) {
                    secret = null;
                }
                if (secret != null) {
                    IdentityKeys.check(property, secret);
                }
            }
            identityKeys = secret == null ? IdentityKeys.UNKEYED : IdentityKeys.keyed(secret);
            resolvedPlans = resolvePlans(resolved);
            return new HttpRateLimiterConfig(this, resolved, identity, address);
        }

        /** Sets the identity of policies without their own from {@code sluice.client.identity}. */
        void identityNames(NamedIdentity names) {
            this.identityResolver = names;
        }

        /** The header set so far, for the properties reader's messages. */
        String apiKeyHeader() {
            return apiKeyHeader;
        }

        private ClientIdentityResolver resolve(ClientIdentityResolver identity, ClientIdentityResolver address) {
            if (!(identity instanceof NamedIdentity named)) {
                return identity;
            }
            List<ClientIdentityResolver> resolvers = new ArrayList<>();
            for (String name : named.names()) {
                resolvers.add(switch (name) {
                    case "address" -> address;
                    case "principal" -> ClientIdentityResolver.principal();
                    case "global" -> ClientIdentityResolver.global();
                    case "api-key" -> {
                        if (apiKeyHeader == null) {
                            throw new IllegalArgumentException("invalid property " + named.property() + "="
                                    + String.join(",", named.names()) + "; identity api-key needs the header"
                                    + " that carries the key: set " + PropertiesReader.API_KEY_HEADER);
                        }
                        yield ClientIdentityResolver.apiKey(apiKeyHeader);
                    }
                    default -> throw new IllegalStateException("unknown identity " + name); // the reader checked
                });
            }
            return resolvers.size() == 1 ? resolvers.get(0)
                    : ClientIdentityResolver.firstOf(resolvers.toArray(ClientIdentityResolver[]::new));
        }
    }
}
