package dev.sluice.http;

import dev.sluice.limiter.AlgorithmDescription;
import dev.sluice.limiter.CalendarPeriod;
import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.FailureMode;
import java.net.URI;
import java.time.DayOfWeek;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationPropertiesSource;

/**
 * The {@code sluice.*} settings: the one model that Spring Boot's binder fills (the starter's properties extend it),
 * that {@link HttpRateLimiterConfig#fromProperties} fills from plain properties, and that
 * {@link HttpRateLimiterConfig#from(SluiceSettings)} validates. Each property is named after its field in kebab case
 * ({@code permitLimit} is {@code permit-limit}); a {@code null} value is a setting that is not set, and takes the
 * default its description gives. Values are checked when the configuration is built, not here, so that every error
 * names the property.
 *
 * <p>The annotation lets Spring Boot's configuration processor describe these settings to IDEs from this source; it
 * is not needed at run time.
 */
@ConfigurationPropertiesSource
@SuppressWarnings("exports") // the annotation is for the processor; users never need its module
public class SluiceSettings {
    /** Rate-limit policies by name: algorithm, permit-limit, window and the rest. */
    private Map<String, PolicySettings> policies = new LinkedHashMap<>();
    /** Routes by id, tried most specific first whatever their ids; every one that matches applies. */
    private Map<String, RouteSettings> routes = new LinkedHashMap<>();
    /** How clients are identified. */
    private ClientSettings client = new ClientSettings();
    /** Compare paths exactly as the server decoded them instead of canonically. */
    private boolean strictMatching = false;
    /** Put every policy in shadow mode: decide and count, never refuse. */
    private boolean shadow = false;
    /** Response headers. */
    private HeaderSettings headers = new HeaderSettings();
    /** Problem bodies. */
    private ProblemSettings problem = new ProblemSettings();
    /** The bound on the store's state and what the store does at the bound. */
    private CapacitySettings capacity = new CapacitySettings();
    /**
     * Let the ratelimits Actuator endpoint reset a client's key (a DELETE, written to the log with who asked, the
     * policy and the key hash); reads of a key are always offered.
     */
    private boolean resetEnabled = false;
    /** The trace of recently refused requests. */
    private TraceSettings trace = new TraceSettings();

    /** Nothing set: every default. */
    public SluiceSettings() {}

    public Map<String, PolicySettings> getPolicies() { return policies; }
    public void setPolicies(Map<String, PolicySettings> policies) { this.policies = new LinkedHashMap<>(policies); }
    public Map<String, RouteSettings> getRoutes() { return routes; }
    public void setRoutes(Map<String, RouteSettings> routes) { this.routes = new LinkedHashMap<>(routes); }
    public ClientSettings getClient() { return client; }
    public void setClient(ClientSettings client) { this.client = client; }
    public boolean isStrictMatching() { return strictMatching; }
    public void setStrictMatching(boolean strictMatching) { this.strictMatching = strictMatching; }
    public boolean isShadow() { return shadow; }
    public void setShadow(boolean shadow) { this.shadow = shadow; }
    public HeaderSettings getHeaders() { return headers; }
    public void setHeaders(HeaderSettings headers) { this.headers = headers; }
    public ProblemSettings getProblem() { return problem; }
    public void setProblem(ProblemSettings problem) { this.problem = problem; }
    public CapacitySettings getCapacity() { return capacity; }
    public void setCapacity(CapacitySettings capacity) { this.capacity = capacity; }
    public boolean isResetEnabled() { return resetEnabled; }
    public void setResetEnabled(boolean resetEnabled) { this.resetEnabled = resetEnabled; }
    public TraceSettings getTrace() { return trace; }
    public void setTrace(TraceSettings trace) { this.trace = trace; }

    /**
     * Refuses {@code value}, as written for {@code property}, with the properties reader's own message if the
     * reader would refuse it (its syntax and range); for binders that convert values themselves, such as Spring
     * Boot's, which reads a bare number for a duration as milliseconds. Properties outside the model and list
     * settings are not checked here.
     *
     * @throws IllegalArgumentException naming the property, the value and what is allowed
     */
    public static void checkWritten(String property, String value) {
        PropertiesReader.checkWritten(property, value);
    }

    /** The words of {@code sluice.capacity.policy}, written in kebab case. */
    public enum CapacityPolicy {
        /** New keys at the bound are decided on shared overflow cells ({@link Capacity.Policy#SHARE_OVERFLOW_CELLS}). */
        OVERFLOW(Capacity.Policy.SHARE_OVERFLOW_CELLS),
        /** New keys at the bound are denied ({@link Capacity.Policy#REFUSE_NEW_KEYS}). */
        REFUSE_NEW_KEYS(Capacity.Policy.REFUSE_NEW_KEYS),
        /** The least recently used state is dropped, resetting its budget. */
        EVICT_RESETTING_BUDGETS(Capacity.Policy.EVICT_LEAST_RECENTLY_USED_RESETTING_BUDGETS);

        private final Capacity.Policy policy;

        CapacityPolicy(Capacity.Policy policy) {
            this.policy = policy;
        }

        /** The store's policy this word names. */
        public Capacity.Policy policy() {
            return policy;
        }
    }

    /**
     * One policy. Which of the limit's settings apply depends on the algorithm ({@link AlgorithmDescription} names
     * each parameter's setting); one that does not apply is an error.
     */
    @ConfigurationPropertiesSource
    @SuppressWarnings("exports")
    public static class PolicySettings extends LimitSettings {
        /**
         * The algorithm (required): fixed-window, sliding-window, sliding-log, sliding-counter, token-bucket, gcra,
         * concurrency or calendar-window.
         */
        private String algorithm;
        /** Permits that may wait in the local queue (default 0: refuse at once). */
        private Long queueLimit;
        /** What happens when the store cannot decide in time (default allow, failing open at the edge). */
        private FailureMode failureMode;
        /** The longest a request waits for the store (default 1 s). */
        private Duration decisionTimeout;
        /** Retries of a retryable store failure within the decision timeout (default 2). */
        private Integer maxRetries;
        /** Replicated (default), replicated-async or ephemeral (Hazelcast only). */
        private Durability durability;
        /** This policy's identity: address, api-key, principal, global, or several tried in order. */
        private List<String> identity;
        /** Decide and count, never refuse (default false, or sluice.shadow). */
        private Boolean shadow;
        /**
         * Replicas of the application that decide locally under failure-mode local, each on the limit divided by
         * it (default: the cluster's members on an embedded Hazelcast member; required on a client or JCache).
         */
        private Integer fallbackReplicas;

        /** Nothing set. */
        public PolicySettings() {}

        public String getAlgorithm() { return algorithm; }
        public void setAlgorithm(String algorithm) { this.algorithm = algorithm; }
        public Long getQueueLimit() { return queueLimit; }
        public void setQueueLimit(Long queueLimit) { this.queueLimit = queueLimit; }
        public FailureMode getFailureMode() { return failureMode; }
        public void setFailureMode(FailureMode failureMode) { this.failureMode = failureMode; }
        public Duration getDecisionTimeout() { return decisionTimeout; }
        public void setDecisionTimeout(Duration decisionTimeout) { this.decisionTimeout = decisionTimeout; }
        public Integer getMaxRetries() { return maxRetries; }
        public void setMaxRetries(Integer maxRetries) { this.maxRetries = maxRetries; }
        public Durability getDurability() { return durability; }
        public void setDurability(Durability durability) { this.durability = durability; }
        public List<String> getIdentity() { return identity; }
        public void setIdentity(List<String> identity) { this.identity = identity; }
        public Boolean getShadow() { return shadow; }
        public void setShadow(Boolean shadow) { this.shadow = shadow; }

        /**
         * Settle from the response: only responses with these statuses count (e.g. 401,403 for failed logins); others
         * give the route's cost back.
         */
        private List<String> countStatuses;
        /** Settle from the response: the cost is the whole number in this response header the application sets. */
        private String costHeader;

        public List<String> getCountStatuses() { return countStatuses; }
        public void setCountStatuses(List<String> countStatuses) { this.countStatuses = countStatuses; }
        public String getCostHeader() { return costHeader; }
        public void setCostHeader(String costHeader) { this.costHeader = costHeader; }

        /**
         * Where a client's plan is read, for a limit per plan (set with plans): claim:<name> or attribute:<name> of
         * the authenticated principal, authority:<prefix> (the principal's authority with that prefix names the
         * plan), header:<name> (honoured only from sluice.client.trusted-proxies), or bean (the application's
         * PlanResolver bean; bean:<name> for one of several).
         */
        private String planFrom;
        /** The plan of a client whose plan is unknown or missing (one of plans); or set unknown-plan to refuse. */
        private String defaultPlan;
        /** What a client of an unknown plan gets: default (default-plan's limit) or refuse (403). */
        private String unknownPlan;
        /** Plans by name, each with the limit settings it changes of this policy's (permit-limit, window ...). */
        private Map<String, LimitSettings> plans;

        public String getPlanFrom() { return planFrom; }
        public void setPlanFrom(String planFrom) { this.planFrom = planFrom; }
        public String getDefaultPlan() { return defaultPlan; }
        public void setDefaultPlan(String defaultPlan) { this.defaultPlan = defaultPlan; }
        public String getUnknownPlan() { return unknownPlan; }
        public void setUnknownPlan(String unknownPlan) { this.unknownPlan = unknownPlan; }
        public Map<String, LimitSettings> getPlans() { return plans; }
        public void setPlans(Map<String, LimitSettings> plans) { this.plans = plans == null ? null : new LinkedHashMap<>(plans); }
        public Integer getFallbackReplicas() { return fallbackReplicas; }
        public void setFallbackReplicas(Integer fallbackReplicas) { this.fallbackReplicas = fallbackReplicas; }
    }

    /**
     * The settings of an algorithm's limit: a policy's ({@link PolicySettings} has them all), or those one of its
     * plans changes (the others are the policy's).
     */
    @ConfigurationPropertiesSource
    @SuppressWarnings("exports")
    public static class LimitSettings {
        /** Permits per window, bucket size, permits per GCRA period, or concurrent permits (required). */
        private Long permitLimit;
        /** The window (window algorithms) or the period (gcra). */
        private Duration window;
        /** Segments per window (sliding-window). */
        private Integer segments;
        /** Tokens added per replenishment period (token-bucket). */
        private Long tokensPerPeriod;
        /** Time between refills (token-bucket). */
        private Duration replenishmentPeriod;
        /** Permits that may be taken at once (gcra). */
        private Long burst;
        /** How long a lease lasts unless renewed (concurrency; default 30 s). */
        private Duration leaseDuration;
        /** The calendar unit of a window: day, week, month or year (calendar-window). */
        private CalendarPeriod period;
        /**
         * The time zone whose calendar the windows follow: a region id such as Europe/Paris, or an offset such as
         * +02:00 (calendar-window; default UTC).
         */
        private String zone;
        /** The day a week starts on (calendar-window with period week; default monday). */
        private DayOfWeek firstDayOfWeek;

        /** Nothing set. */
        public LimitSettings() {}

        public Long getPermitLimit() { return permitLimit; }
        public void setPermitLimit(Long permitLimit) { this.permitLimit = permitLimit; }
        public Duration getWindow() { return window; }
        public void setWindow(Duration window) { this.window = window; }
        public Integer getSegments() { return segments; }
        public void setSegments(Integer segments) { this.segments = segments; }
        public Long getTokensPerPeriod() { return tokensPerPeriod; }
        public void setTokensPerPeriod(Long tokensPerPeriod) { this.tokensPerPeriod = tokensPerPeriod; }
        public Duration getReplenishmentPeriod() { return replenishmentPeriod; }
        public void setReplenishmentPeriod(Duration replenishmentPeriod) { this.replenishmentPeriod = replenishmentPeriod; }
        public Long getBurst() { return burst; }
        public void setBurst(Long burst) { this.burst = burst; }
        public Duration getLeaseDuration() { return leaseDuration; }
        public void setLeaseDuration(Duration leaseDuration) { this.leaseDuration = leaseDuration; }
        public CalendarPeriod getPeriod() { return period; }
        public void setPeriod(CalendarPeriod period) { this.period = period; }
        public String getZone() { return zone; }
        public void setZone(String zone) { this.zone = zone; }
        public DayOfWeek getFirstDayOfWeek() { return firstDayOfWeek; }
        public void setFirstDayOfWeek(DayOfWeek firstDayOfWeek) { this.firstDayOfWeek = firstDayOfWeek; }
    }

    /** One route. */
    @ConfigurationPropertiesSource
    @SuppressWarnings("exports")
    public static class RouteSettings {
        /** An exact path (/login) or a prefix (/api/*) (required). */
        private String pattern;
        /** HTTP methods (default every method). */
        private List<String> methods;
        /** The policies that apply, in order, all of them (required). */
        private List<String> policy;
        /** Permits each matching request takes from each policy (default 1). */
        private Long cost;

        /** Nothing set. */
        public RouteSettings() {}

        public String getPattern() { return pattern; }
        public void setPattern(String pattern) { this.pattern = pattern; }
        public List<String> getMethods() { return methods; }
        public void setMethods(List<String> methods) { this.methods = methods; }
        public List<String> getPolicy() { return policy; }
        public void setPolicy(List<String> policy) { this.policy = policy; }
        public Long getCost() { return cost; }
        public void setCost(Long cost) { this.cost = cost; }
    }

    /** How clients are identified. */
    @ConfigurationPropertiesSource
    @SuppressWarnings("exports")
    public static class ClientSettings {
        /**
         * The identity of policies without their own: address (the default; api-key when api-key-header is set),
         * api-key, principal, global, or several tried in order.
         */
        private List<String> identity;
        /** The header of an API key, only for keys authenticated before the rate limiter runs; empty: none. */
        private String apiKeyHeader;
        /**
         * Addresses or CIDR ranges whose X-Forwarded-For and Forwarded headers are believed; the peer is the one the
         * server itself saw, whatever the server's forwarded-header support made of it.
         */
        private List<String> trustedProxies;
        /** Accept trusted-proxies ranges that together cover half of an address family or more (0.0.0.0/0, ::/0 ...). */
        private boolean allowTrustAll = false;
        /** IPv6 clients are grouped by this many leading bits (1 to 128). */
        private int ipv6Prefix = ClientIdentityResolver.DEFAULT_IPV6_PREFIX;
        /**
         * The secret (at least 16 characters, the same on every replica) that client identities are keyed with
         * (HMAC-SHA256) before they become store keys; default the environment variable SLUICE_IDENTITY_SECRET, else
         * none (plain SHA-256, which a reader of the store can reverse).
         */
        private String identitySecret;

        /** Nothing set: every default. */
        public ClientSettings() {}

        public List<String> getIdentity() { return identity; }
        public void setIdentity(List<String> identity) { this.identity = identity; }
        public String getApiKeyHeader() { return apiKeyHeader; }
        public void setApiKeyHeader(String apiKeyHeader) { this.apiKeyHeader = apiKeyHeader; }
        public List<String> getTrustedProxies() { return trustedProxies; }
        public void setTrustedProxies(List<String> trustedProxies) { this.trustedProxies = trustedProxies; }
        public boolean isAllowTrustAll() { return allowTrustAll; }
        public void setAllowTrustAll(boolean allowTrustAll) { this.allowTrustAll = allowTrustAll; }
        public int getIpv6Prefix() { return ipv6Prefix; }
        public void setIpv6Prefix(int ipv6Prefix) { this.ipv6Prefix = ipv6Prefix; }
        public String getIdentitySecret() { return identitySecret; }
        public void setIdentitySecret(String identitySecret) { this.identitySecret = identitySecret; }

        /** Never shows the secret, only whether there is one. */
        @Override
        public String toString() {
            return "ClientSettings[identity=" + identity + ", apiKeyHeader=" + apiKeyHeader + ", trustedProxies="
                    + trustedProxies + ", allowTrustAll=" + allowTrustAll + ", ipv6Prefix=" + ipv6Prefix
                    + ", identitySecret=" + (identitySecret == null ? "none" : "(set)") + "]";
        }
    }

    /** Response headers. */
    @ConfigurationPropertiesSource
    @SuppressWarnings("exports")
    public static class HeaderSettings {
        /** Send the RateLimit-Policy and RateLimit headers. */
        private boolean enabled = true;
        /** Add pk, the hashed client identity, to the headers. */
        private boolean partitionKey = false;
        /** Also send RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset. */
        private boolean legacy = false;

        /** Every default. */
        public HeaderSettings() {}

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public boolean isPartitionKey() { return partitionKey; }
        public void setPartitionKey(boolean partitionKey) { this.partitionKey = partitionKey; }
        public boolean isLegacy() { return legacy; }
        public void setLegacy(boolean legacy) { this.legacy = legacy; }
    }

    /** Problem bodies. */
    @ConfigurationPropertiesSource
    @SuppressWarnings("exports")
    public static class ProblemSettings {
        /** The type URI of 429 problem bodies (default the quota-exceeded type of the RateLimit headers draft). */
        private URI type = HttpRateLimiterConfig.QUOTA_EXCEEDED;
        /**
         * Add refused-by to 429 problem bodies: each refusing policy, the hash of the client identity it counted,
         * remaining, limit, reset and retry-after. It tells clients which policy and key they hit.
         */
        private boolean decisions = false;

        /** The default type. */
        public ProblemSettings() {}

        public URI getType() { return type; }
        public void setType(URI type) { this.type = type; }
        public boolean isDecisions() { return decisions; }
        public void setDecisions(boolean decisions) { this.decisions = decisions; }
    }

    /** The trace of recently refused requests. */
    @ConfigurationPropertiesSource
    @SuppressWarnings("exports")
    public static class TraceSettings {
        /**
         * How many of the latest refused requests are kept, with the routes that matched and what each policy
         * decided (0 to 100000; 0 keeps none).
         */
        private int refusedRequests = HttpRateLimiterConfig.DEFAULT_REFUSAL_TRACE;

        /** The default size. */
        public TraceSettings() {}

        public int getRefusedRequests() { return refusedRequests; }
        public void setRefusedRequests(int refusedRequests) { this.refusedRequests = refusedRequests; }
    }

    /** The store's bound: at most one of max-keys, max-bytes and heap-percent (default a quarter of the heap). */
    @ConfigurationPropertiesSource
    @SuppressWarnings("exports")
    public static class CapacitySettings {
        /** The store's bound in keys. */
        private Long maxKeys;
        /** The store's bound in bytes, in key units of 400 bytes. */
        private Long maxBytes;
        /** The store's bound as a share of the heap, 1 to 90 (the default bound is 25). */
        private Integer heapPercent;
        /** What the store does at the bound (default overflow). */
        private CapacityPolicy policy;
        /**
         * Overflow cells per limiter and algorithm (default: in-process a quarter of the bound, on Hazelcast 4096, the
         * same on every member).
         */
        private Integer overflowCells;

        /** Nothing set: the default bound. */
        public CapacitySettings() {}

        public Long getMaxKeys() { return maxKeys; }
        public void setMaxKeys(Long maxKeys) { this.maxKeys = maxKeys; }
        public Long getMaxBytes() { return maxBytes; }
        public void setMaxBytes(Long maxBytes) { this.maxBytes = maxBytes; }
        public Integer getHeapPercent() { return heapPercent; }
        public void setHeapPercent(Integer heapPercent) { this.heapPercent = heapPercent; }
        public CapacityPolicy getPolicy() { return policy; }
        public void setPolicy(CapacityPolicy policy) { this.policy = policy; }
        public Integer getOverflowCells() { return overflowCells; }
        public void setOverflowCells(Integer overflowCells) { this.overflowCells = overflowCells; }

        /** Whether any of these is set. */
        boolean anySet() {
            return maxKeys != null || maxBytes != null || heapPercent != null || policy != null || overflowCells != null;
        }
    }
}
