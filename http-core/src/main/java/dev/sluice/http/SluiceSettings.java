package dev.sluice.http;

import dev.sluice.limiter.Capacity;
import dev.sluice.limiter.Durability;
import dev.sluice.limiter.FailureMode;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code sluice.*} settings, typed: the one model that both {@link HttpRateLimiterConfig#fromProperties} and
 * Spring Boot's binder fill, and {@link HttpRateLimiterConfig#from(SluiceSettings)} validates. Each property is
 * named after its record component in kebab case ({@code permitLimit} is {@code permit-limit}); a {@code null}
 * component is a setting that is not set, and takes the default the module README lists. Values are checked
 * when the configuration is built, not here, so that every error names the property.
 *
 * @param policies {@code sluice.policies.<name>.*}
 * @param routes {@code sluice.routes.<id>.*}; tried most specific first, whatever their ids
 * @param client {@code sluice.client.*}
 * @param strictMatching {@code sluice.strict-matching}
 * @param shadow {@code sluice.shadow}
 * @param headers {@code sluice.headers.*}
 * @param problem {@code sluice.problem.*}
 * @param capacity {@code sluice.capacity.*}
 */
public record SluiceSettings(Map<String, PolicySettings> policies, Map<String, RouteSettings> routes,
        ClientSettings client, boolean strictMatching, boolean shadow, HeaderSettings headers, ProblemSettings problem,
        CapacitySettings capacity) {

    /** Absent groups become their defaults, so every component is non-null. */
    public SluiceSettings {
        policies = policies == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(policies));
        routes = routes == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(routes));
        client = client == null ? new ClientSettings(null, null, null, false, null, null) : client;
        headers = headers == null ? new HeaderSettings(null, false, false) : headers;
        problem = problem == null ? new ProblemSettings(null) : problem;
        capacity = capacity == null ? new CapacitySettings(null, null, null, null, null) : capacity;
    }

    /** Nothing set: every default. */
    public static SluiceSettings defaults() {
        return new SluiceSettings(null, null, null, false, false, null, null, null);
    }

    /** The algorithms of {@code sluice.policies.<name>.algorithm}, written in kebab case ({@code fixed-window}). */
    public enum Algorithm {
        FIXED_WINDOW, SLIDING_WINDOW, SLIDING_LOG, SLIDING_COUNTER, TOKEN_BUCKET, GCRA, CONCURRENCY;

        /** The name as a property writes it, such as {@code fixed-window}. */
        public String written() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
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

        /** The name as a property writes it, such as {@code refuse-new-keys}. */
        public String written() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * One policy. Which of the limit's settings apply depends on the algorithm; one that does not apply is an error.
     *
     * @param algorithm required
     * @param permitLimit required: permits per window, bucket size, permits per GCRA period, concurrent permits
     * @param window the window (window algorithms), the period (gcra)
     * @param segments segments per window (sliding-window)
     * @param tokensPerPeriod tokens added per replenishment period (token-bucket)
     * @param replenishmentPeriod time between refills (token-bucket)
     * @param burst permits that may be taken at once (gcra)
     * @param leaseDuration how long a lease lasts unless renewed (concurrency; default 30 s)
     * @param queueLimit permits that may wait in the local queue (default 0: refuse at once)
     * @param failureMode what happens when the store cannot decide in time (default allow at the edge)
     * @param decisionTimeout the longest a request waits for the store (default 1 s)
     * @param maxRetries retries of a retryable store failure within the decision timeout (default 2)
     * @param durability replicated (default), replicated-async or ephemeral (Hazelcast only)
     * @param identity this policy's identity: address, api-key, principal, global, or several tried in order
     * @param shadow decide and count, never refuse (default false)
     */
    public record PolicySettings(Algorithm algorithm, Long permitLimit, Duration window, Integer segments,
            Long tokensPerPeriod, Duration replenishmentPeriod, Long burst, Duration leaseDuration, Long queueLimit,
            FailureMode failureMode, Duration decisionTimeout, Integer maxRetries, Durability durability,
            List<String> identity, Boolean shadow) {

        /** Lists are copied. */
        public PolicySettings {
            identity = identity == null ? null : List.copyOf(identity);
        }
    }

    /**
     * One route.
     *
     * @param pattern required: an exact path ({@code /login}) or a prefix ({@code /api/*})
     * @param methods HTTP methods; default every method
     * @param policy required: the policies that apply, in order (all of them)
     * @param cost permits each matching request takes from each policy (default 1)
     */
    public record RouteSettings(String pattern, List<String> methods, List<String> policy, Long cost) {

        /** Lists are copied. */
        public RouteSettings {
            methods = methods == null ? null : List.copyOf(methods);
            policy = policy == null ? null : List.copyOf(policy);
        }
    }

    /**
     * How clients are identified.
     *
     * @param identity the identity of policies without their own: address (default), api-key, principal, global,
     *     or several tried in order
     * @param apiKeyHeader the header of an API key, only for keys authenticated before the rate limiter runs
     * @param trustedProxies addresses or CIDR ranges whose {@code X-Forwarded-For} and {@code Forwarded} are believed
     * @param allowTrustAll accept a trusted-proxies range that covers every address (default false)
     * @param ipv6Prefix IPv6 clients are grouped by this many leading bits (default 64)
     * @param identitySecret the key of the keyed hash (HMAC-SHA256) that client identities are stored under, the
     *     same on every replica, at least 16 characters; default the environment variable
     *     {@code SLUICE_IDENTITY_SECRET}, else none (plain SHA-256, which a reader of the store can reverse)
     */
    public record ClientSettings(List<String> identity, String apiKeyHeader, List<String> trustedProxies,
            boolean allowTrustAll, Integer ipv6Prefix, String identitySecret) {

        /** Lists are copied; the default prefix is filled in. */
        public ClientSettings {
            identity = identity == null ? null : List.copyOf(identity);
            trustedProxies = trustedProxies == null ? null : List.copyOf(trustedProxies);
            ipv6Prefix = ipv6Prefix == null ? ClientIdentityResolver.DEFAULT_IPV6_PREFIX : ipv6Prefix;
        }

        /** Never shows the secret, only whether there is one. */
        @Override
        public String toString() {
            return "ClientSettings[identity=" + identity + ", apiKeyHeader=" + apiKeyHeader + ", trustedProxies="
                    + trustedProxies + ", allowTrustAll=" + allowTrustAll + ", ipv6Prefix=" + ipv6Prefix
                    + ", identitySecret=" + (identitySecret == null ? "none" : "(set)") + "]";
        }
    }

    /**
     * Response headers.
     *
     * @param enabled send the {@code RateLimit-Policy} and {@code RateLimit} headers (default true)
     * @param partitionKey add {@code pk}, the hashed client identity (default false)
     * @param legacy also send {@code RateLimit-Limit}, {@code -Remaining}, {@code -Reset} (default false)
     */
    public record HeaderSettings(Boolean enabled, boolean partitionKey, boolean legacy) {

        /** The default of {@code enabled} is filled in. */
        public HeaderSettings {
            enabled = enabled == null ? Boolean.TRUE : enabled;
        }
    }

    /**
     * Problem bodies.
     *
     * @param type the {@code type} of 429 problem bodies (default {@link HttpRateLimiterConfig#QUOTA_EXCEEDED})
     */
    public record ProblemSettings(URI type) {

        /** The default type is filled in. */
        public ProblemSettings {
            type = type == null ? HttpRateLimiterConfig.QUOTA_EXCEEDED : type;
        }
    }

    /**
     * The store's bound: at most one of {@code maxKeys}, {@code maxBytes} and {@code heapPercent} (default
     * {@link Capacity#defaults()}, a quarter of the heap).
     *
     * @param maxKeys the bound in keys
     * @param maxBytes the bound in bytes, in key units of {@value Capacity#ESTIMATED_BYTES_PER_KEY} bytes
     * @param heapPercent the bound as a share of the heap
     * @param policy what the store does at the bound (default overflow)
     * @param overflowCells overflow cells per limiter and algorithm (default: in-process a quarter of the bound, on
     *     Hazelcast 4096, the same on every member)
     */
    public record CapacitySettings(Long maxKeys, Long maxBytes, Integer heapPercent, CapacityPolicy policy,
            Integer overflowCells) {}

    /**
     * Refuses {@code value}, as written for {@code property}, with the properties reader's own message if the
     * reader would refuse it (its syntax and range); for binders that convert values themselves, such as Spring
     * Boot's, which accepts {@code yes} for a boolean or a bare number for a duration. Properties outside the model
     * and list settings are not checked here.
     *
     * @throws IllegalArgumentException naming the property, the value and what is allowed
     */
    public static void checkWritten(String property, String value) {
        PropertiesReader.checkWritten(property, value);
    }
}
