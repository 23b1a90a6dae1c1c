package dev.sluice.spring;

import dev.sluice.http.RateLimitFilterConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code sluice.*} properties. Policies, routes, identity, headers and shadow mode are exactly the
 * servlet filter's properties ({@link RateLimitFilterConfig}; the servlet-filter README has the reference
 * table) and are validated by the same reader, so their values are kept as written (strings) and checked
 * once, at start-up, with messages that name the property, the value and what is allowed. An unknown
 * {@code sluice.*} property also fails start-up.
 */
@ConfigurationProperties(prefix = "sluice", ignoreUnknownFields = false)
public class SluiceProperties {
    /** Whether Sluice's auto-configuration applies at all. */
    private boolean enabled = true;
    /** Rate-limit policies by name. */
    private Map<String, Policy> policies = new LinkedHashMap<>();
    /** Routes by id, tried most specific first whatever their ids; every one that matches applies. */
    private Map<String, Route> routes = new LinkedHashMap<>();
    /** How clients are identified. */
    private Client client = new Client();
    /** Compare paths exactly as the server decoded them ({@code true}) instead of canonically ({@code false}, the default). */
    private String strictMatching;
    /** Put every policy in shadow mode: decide and count, never refuse ({@code true} or {@code false}, the default). */
    private String shadow;
    /** Response headers. */
    private Headers headers = new Headers();
    /** Problem bodies. */
    private Problem problem = new Problem();
    /** The servlet filter, or the WebFlux filter in a reactive application. */
    private Filter filter = new Filter();
    /** The local pre-filter in front of each policy's limiter (needs local-prefilter on the classpath). */
    private Prefilter prefilter = new Prefilter();
    /** The Hazelcast backend. */
    private Hazelcast hazelcast = new Hazelcast();
    /** The JCache backend. */
    private Jcache jcache = new Jcache();
    /** The prefix of every key Sluice stores (Hazelcast and JCache backends). */
    private String keyPrefix = "sluice";
    /** The bound on the store's state and what it does at the bound (every backend the starter creates). */
    private Capacity capacity = new Capacity();

    /**
     * The policy and route properties as the servlet filter reads them ({@code sluice.policies.<name>.<setting>},
     * ...), only those that are set.
     */
    public Properties toFilterProperties() {
        Properties p = new Properties();
        put(p, "sluice.strict-matching", strictMatching);
        put(p, "sluice.shadow", shadow);
        put(p, "sluice.headers.enabled", headers.enabled);
        put(p, "sluice.headers.partition-key", headers.partitionKey);
        put(p, "sluice.headers.legacy", headers.legacy);
        put(p, "sluice.problem.type", problem.type);
        put(p, "sluice.client.identity", join(client.identity));
        put(p, "sluice.client.api-key-header", client.apiKeyHeader);
        put(p, "sluice.client.trusted-proxies", join(client.trustedProxies));
        put(p, "sluice.client.allow-trust-all", client.allowTrustAll);
        put(p, "sluice.client.ipv6-prefix", client.ipv6Prefix);
        put(p, "sluice.capacity.max-keys", capacity.maxKeys);
        put(p, "sluice.capacity.max-bytes", capacity.maxBytes);
        put(p, "sluice.capacity.heap-percent", capacity.heapPercent);
        put(p, "sluice.capacity.policy", capacity.policy);
        put(p, "sluice.capacity.overflow-cells", capacity.overflowCells);
        policies.forEach((name, policy) -> policy.putInto(p, "sluice.policies." + name + "."));
        routes.forEach((id, route) -> route.putInto(p, "sluice.routes." + id + "."));
        return p;
    }

    /**
     * The bound {@code sluice.capacity.*} sets, read as the HTTP core reads it (so with its validation and
     * messages), or {@code null} when none of them is set; for the configurations that run before the properties
     * are bound (a Hazelcast member's config).
     */
    static dev.sluice.limiter.Capacity capacityOf(org.springframework.core.env.Environment environment) {
        Properties p = new Properties();
        for (String setting : List.of("max-keys", "max-bytes", "heap-percent", "policy", "overflow-cells")) {
            put(p, "sluice.capacity." + setting, environment.getProperty("sluice.capacity." + setting));
        }
        return p.isEmpty() ? null : RateLimitFilterConfig.builder().properties(p).build().capacity();
    }

    private static void put(Properties p, String key, String value) {
        if (value != null) {
            p.setProperty(key, value);
        }
    }

    private static String join(List<String> values) {
        return values == null ? null : String.join(",", values);
    }

    public boolean isEnabled() { return enabled; }
    public void setEnabled(boolean enabled) { this.enabled = enabled; }
    public Map<String, Policy> getPolicies() { return policies; }
    public void setPolicies(Map<String, Policy> policies) { this.policies = policies; }
    public Map<String, Route> getRoutes() { return routes; }
    public void setRoutes(Map<String, Route> routes) { this.routes = routes; }
    public Client getClient() { return client; }
    public void setClient(Client client) { this.client = client; }
    public String getStrictMatching() { return strictMatching; }
    public void setStrictMatching(String strictMatching) { this.strictMatching = strictMatching; }
    public String getShadow() { return shadow; }
    public void setShadow(String shadow) { this.shadow = shadow; }
    public Headers getHeaders() { return headers; }
    public void setHeaders(Headers headers) { this.headers = headers; }
    public Problem getProblem() { return problem; }
    public void setProblem(Problem problem) { this.problem = problem; }
    public Filter getFilter() { return filter; }
    public void setFilter(Filter filter) { this.filter = filter; }
    public Prefilter getPrefilter() { return prefilter; }
    public void setPrefilter(Prefilter prefilter) { this.prefilter = prefilter; }
    public Hazelcast getHazelcast() { return hazelcast; }
    public void setHazelcast(Hazelcast hazelcast) { this.hazelcast = hazelcast; }
    public Jcache getJcache() { return jcache; }
    public void setJcache(Jcache jcache) { this.jcache = jcache; }
    public String getKeyPrefix() { return keyPrefix; }
    public void setKeyPrefix(String keyPrefix) { this.keyPrefix = keyPrefix; }
    public Capacity getCapacity() { return capacity; }
    public void setCapacity(Capacity capacity) { this.capacity = capacity; }

    /** One policy: what each client may do, and how its limiter behaves around the store. */
    public static class Policy {
        /** fixed-window, sliding-window, sliding-log, sliding-counter, token-bucket, gcra or concurrency. */
        private String algorithm;
        /** The limit: permits per window, bucket size, permits per GCRA period, concurrent permits (1 to 1,000,000,000). */
        private String permitLimit;
        /** Duration such as 1m or PT1M: the window (window algorithms), the period (gcra). */
        private String window;
        /** Segments per window (sliding-window), 1 to 1,000. */
        private String segments;
        /** Tokens added per replenishment period (token-bucket). */
        private String tokensPerPeriod;
        /** Duration between refills, such as 10s or PT10S (token-bucket). */
        private String replenishmentPeriod;
        /** Permits that may be taken at once (gcra). */
        private String burst;
        /** Duration a concurrency lease lasts unless renewed, such as 30s or PT30S (concurrency; default 30s). */
        private String leaseDuration;
        /** Permits that may wait in the local queue (default 0: refuse at once); the WebFlux filter and acquireAsync wait, the servlet filter never does. */
        private String queueLimit;
        /** What happens when the store cannot decide in time: allow (default at the edge), deny or throw (503). */
        private String failureMode;
        /** Duration such as 500ms or PT0.5S: the longest a request waits for the store (default 1s). */
        private String decisionTimeout;
        /** Retries of a retryable store failure within the decision timeout (0 to 10, default 2). */
        private String maxRetries;
        /**
         * replicated (one synchronous backup, the default), replicated-async (one asynchronous backup: near ephemeral's
         * speed, a member's loss forgets its last moments' decisions) or ephemeral (none: faster; Hazelcast only).
         */
        private String durability;
        /** This policy's identity: address, api-key, principal, global, or several tried in order. */
        private List<String> identity;
        /** Decide and count, never refuse (true or false, the default). */
        private String shadow;

        void putInto(Properties p, String base) {
            put(p, base + "algorithm", algorithm);
            put(p, base + "permit-limit", permitLimit);
            put(p, base + "window", window);
            put(p, base + "segments", segments);
            put(p, base + "tokens-per-period", tokensPerPeriod);
            put(p, base + "replenishment-period", replenishmentPeriod);
            put(p, base + "burst", burst);
            put(p, base + "lease-duration", leaseDuration);
            put(p, base + "queue-limit", queueLimit);
            put(p, base + "failure-mode", failureMode);
            put(p, base + "decision-timeout", decisionTimeout);
            put(p, base + "max-retries", maxRetries);
            put(p, base + "durability", durability);
            put(p, base + "identity", join(identity));
            put(p, base + "shadow", shadow);
        }

        public String getAlgorithm() { return algorithm; }
        public void setAlgorithm(String algorithm) { this.algorithm = algorithm; }
        public String getPermitLimit() { return permitLimit; }
        public void setPermitLimit(String permitLimit) { this.permitLimit = permitLimit; }
        public String getWindow() { return window; }
        public void setWindow(String window) { this.window = window; }
        public String getSegments() { return segments; }
        public void setSegments(String segments) { this.segments = segments; }
        public String getTokensPerPeriod() { return tokensPerPeriod; }
        public void setTokensPerPeriod(String tokensPerPeriod) { this.tokensPerPeriod = tokensPerPeriod; }
        public String getReplenishmentPeriod() { return replenishmentPeriod; }
        public void setReplenishmentPeriod(String replenishmentPeriod) { this.replenishmentPeriod = replenishmentPeriod; }
        public String getBurst() { return burst; }
        public void setBurst(String burst) { this.burst = burst; }
        public String getLeaseDuration() { return leaseDuration; }
        public void setLeaseDuration(String leaseDuration) { this.leaseDuration = leaseDuration; }
        public String getQueueLimit() { return queueLimit; }
        public void setQueueLimit(String queueLimit) { this.queueLimit = queueLimit; }
        public String getFailureMode() { return failureMode; }
        public void setFailureMode(String failureMode) { this.failureMode = failureMode; }
        public String getDecisionTimeout() { return decisionTimeout; }
        public void setDecisionTimeout(String decisionTimeout) { this.decisionTimeout = decisionTimeout; }
        public String getMaxRetries() { return maxRetries; }
        public void setMaxRetries(String maxRetries) { this.maxRetries = maxRetries; }
        public String getDurability() { return durability; }
        public void setDurability(String durability) { this.durability = durability; }
        public List<String> getIdentity() { return identity; }
        public void setIdentity(List<String> identity) { this.identity = identity; }
        public String getShadow() { return shadow; }
        public void setShadow(String shadow) { this.shadow = shadow; }
    }

    /** Which requests one or more policies apply to, and what each costs. */
    public static class Route {
        /** An exact path (/login) or a prefix (/api/*). */
        private String pattern;
        /** HTTP methods; default every method. */
        private List<String> methods;
        /** The policies that apply, in order (all of them). */
        private List<String> policy;
        /** Permits each matching request takes from each policy (default 1). */
        private String cost;

        void putInto(Properties p, String base) {
            put(p, base + "pattern", pattern);
            put(p, base + "methods", join(methods));
            put(p, base + "policy", join(policy));
            put(p, base + "cost", cost);
        }

        public String getPattern() { return pattern; }
        public void setPattern(String pattern) { this.pattern = pattern; }
        public List<String> getMethods() { return methods; }
        public void setMethods(List<String> methods) { this.methods = methods; }
        public List<String> getPolicy() { return policy; }
        public void setPolicy(List<String> policy) { this.policy = policy; }
        public String getCost() { return cost; }
        public void setCost(String cost) { this.cost = cost; }
    }

    /** How clients are identified. */
    public static class Client {
        /** The identity of policies without their own: address (default), api-key, principal, global, or several in order. */
        private List<String> identity;
        /** The header of an API key, only for keys authenticated before the rate limiter runs. */
        private String apiKeyHeader;
        /**
         * Addresses or CIDR ranges whose X-Forwarded-For and Forwarded headers are believed; the peer is the one
         * the server itself saw, whatever Spring's or the server's forwarded-header support made of it.
         */
        private List<String> trustedProxies;
        /** Accept a trusted-proxies range that covers every address, 0.0.0.0/0 or ::/0 (true or false, the default). */
        private String allowTrustAll;
        /** IPv6 clients are grouped by this many leading bits (1 to 128, default 64). */
        private String ipv6Prefix;

        public List<String> getIdentity() { return identity; }
        public void setIdentity(List<String> identity) { this.identity = identity; }
        public String getApiKeyHeader() { return apiKeyHeader; }
        public void setApiKeyHeader(String apiKeyHeader) { this.apiKeyHeader = apiKeyHeader; }
        public List<String> getTrustedProxies() { return trustedProxies; }
        public void setTrustedProxies(List<String> trustedProxies) { this.trustedProxies = trustedProxies; }
        public String getAllowTrustAll() { return allowTrustAll; }
        public void setAllowTrustAll(String allowTrustAll) { this.allowTrustAll = allowTrustAll; }
        public String getIpv6Prefix() { return ipv6Prefix; }
        public void setIpv6Prefix(String ipv6Prefix) { this.ipv6Prefix = ipv6Prefix; }
    }

    /** Response headers. */
    public static class Headers {
        /** Send the RateLimit-Policy and RateLimit headers (true, the default, or false). */
        private String enabled;
        /** Add pk, the hashed client identity, to the headers (true or false, the default). */
        private String partitionKey;
        /** Also send RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (true or false, the default). */
        private String legacy;

        public String getEnabled() { return enabled; }
        public void setEnabled(String enabled) { this.enabled = enabled; }
        public String getPartitionKey() { return partitionKey; }
        public void setPartitionKey(String partitionKey) { this.partitionKey = partitionKey; }
        public String getLegacy() { return legacy; }
        public void setLegacy(String legacy) { this.legacy = legacy; }
    }

    /** Problem bodies. */
    public static class Problem {
        /** The type URI of 429 problem bodies (default the draft's quota-exceeded). */
        private String type;

        public String getType() { return type; }
        public void setType(String type) { this.type = type; }
    }

    /**
     * The store's bound. Default: a quarter of the heap, new keys at the bound decided on shared overflow cells,
     * no state that still limits ever dropped.
     */
    public static class Capacity {
        /** The bound in keys (set one of max-keys, max-bytes and heap-percent). */
        private String maxKeys;
        /** The bound in bytes, in key units of 400 bytes. */
        private String maxBytes;
        /** The bound as a share of the heap, 1 to 90 (default 25). */
        private String heapPercent;
        /** overflow (default), refuse-new-keys, or evict-resetting-budgets (drops live state: its budget restarts). */
        private String policy;
        /** Overflow cells per spec (default half the bound). */
        private String overflowCells;

        public String getMaxKeys() { return maxKeys; }
        public void setMaxKeys(String maxKeys) { this.maxKeys = maxKeys; }
        public String getMaxBytes() { return maxBytes; }
        public void setMaxBytes(String maxBytes) { this.maxBytes = maxBytes; }
        public String getHeapPercent() { return heapPercent; }
        public void setHeapPercent(String heapPercent) { this.heapPercent = heapPercent; }
        public String getPolicy() { return policy; }
        public void setPolicy(String policy) { this.policy = policy; }
        public String getOverflowCells() { return overflowCells; }
        public void setOverflowCells(String overflowCells) { this.overflowCells = overflowCells; }
    }

    /** The HTTP filter. */
    public static class Filter {
        /** Whether the servlet or WebFlux filter is registered. */
        private boolean enabled = true;
        /**
         * The filter's order. The default, 0, runs after Spring Security's filters (-100), so that the
         * principal identity sees the authenticated user.
         */
        private int order = 0;
        /** The URL patterns the servlet filter is mapped to (routes decide what is limited within them). */
        private List<String> urlPatterns = new ArrayList<>(List.of("/*"));

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public int getOrder() { return order; }
        public void setOrder(int order) { this.order = order; }
        public List<String> getUrlPatterns() { return urlPatterns; }
        public void setUrlPatterns(List<String> urlPatterns) { this.urlPatterns = urlPatterns; }
    }

    /** The local pre-filter. */
    public static class Prefilter {
        /**
         * off (the default), refusal-cache (exact: refuses locally what the store refused, until its
         * retry-after) or allowance (takes permits from the store in batches; not for concurrency policies).
         */
        private String mode = "off";

        public String getMode() { return mode; }
        public void setMode(String mode) { this.mode = mode; }

        /** The mode as an enum name, or null for off. */
        String modeName() {
            String m = mode == null ? "off" : mode.strip().toLowerCase(Locale.ROOT);
            return switch (m) {
                case "off" -> null;
                case "refusal-cache" -> "REFUSAL_CACHE";
                case "allowance" -> "ALLOWANCE";
                default -> throw new IllegalArgumentException("invalid property sluice.prefilter.mode='" + mode
                        + "'; expected one of off, refusal-cache, allowance");
            };
        }
    }

    /** The Hazelcast backend. */
    public static class Hazelcast {
        /** The map of replicated limiters (ephemeral ones use it with the suffix -ephemeral, replicated-async ones with -async-backup). */
        private String mapName = "sluice";

        public String getMapName() { return mapName; }
        public void setMapName(String mapName) { this.mapName = mapName; }
    }

    /** The JCache backend. */
    public static class Jcache {
        /** The cache that holds limiter state; created if the cache manager does not have it. */
        private String cacheName = "sluice";

        public String getCacheName() { return cacheName; }
        public void setCacheName(String cacheName) { this.cacheName = cacheName; }
    }
}
