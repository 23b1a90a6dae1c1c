package dev.sluice.spring;

import dev.sluice.http.HttpRateLimiterConfig;
import dev.sluice.http.SluiceSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The {@code sluice.*} properties: the HTTP core's {@link SluiceSettings} (policies, routes, identity, headers,
 * problem bodies, shadow mode and the store's capacity), bound by Spring Boot and validated by the same rules as the
 * servlet filter's properties, with the same messages naming the property, the value and what is allowed; and the
 * starter's own settings below. An unknown {@code sluice.*} property fails start-up.
 */
@ConfigurationProperties(prefix = "sluice", ignoreUnknownFields = false)
public class SluiceProperties extends SluiceSettings {
    /** Whether Sluice's auto-configuration applies at all. */
    private boolean enabled = true;
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

    /**
     * The bound {@code sluice.capacity.*} sets, by the HTTP core's rules and messages, or {@code null} when none of
     * them is set; for the configurations that run before the properties are bound (a Hazelcast member's config).
     *
     * @throws InvalidSluiceConfigurationException naming the property, its value and what is allowed
     */
    static dev.sluice.limiter.Capacity capacityOf(Environment environment) {
        try {
            return Binder.get(environment).bind("sluice.capacity", Bindable.of(SluiceSettings.CapacitySettings.class),
                    SluiceBinding.handler()).map(c -> {
                        SluiceSettings settings = new SluiceSettings();
                        settings.setCapacity(c);
                        return HttpRateLimiterConfig.builder().settings(settings, written(environment)).build()
                                .capacity();
                    })
                    .orElse(null);
        } catch (IllegalArgumentException e) {
            throw new InvalidSluiceConfigurationException(e.getMessage(), e);
        }
    }

    /** How the environment writes each property, for messages; null where it cannot say. */
    static java.util.function.Function<String, String> written(Environment environment) {
        return name -> {
            try {
                return environment.getProperty(name);
            } catch (RuntimeException e) {
                return null; // an unresolvable placeholder: the message shows the bound value instead
            }
        };
    }

    public boolean isEnabled() { return enabled; }
    public void setEnabled(boolean enabled) { this.enabled = enabled; }
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

    /** The HTTP filter. */
    public static class Filter {
        /** Whether the servlet or WebFlux filter is registered. */
        private boolean enabled = true;
        /**
         * The order of one filter deciding every policy. Unset (the default), Sluice places each policy where its
         * identity is known: with Spring Security, a policy keyed on the address, a header or nothing (global)
         * just before Spring Security's filter chain (order -100, so failed logins are counted), one keyed on the
         * principal after it; without it, at 0. An order that contradicts that for some policy fails start-up
         * unless override-security-order is true.
         */
        private Integer order;
        /**
         * Run every policy at sluice.filter.order even where Spring Security's filter chain hides its requests
         * (a policy keyed on the address after the chain) or its principal (one keyed on the principal before).
         */
        private boolean overrideSecurityOrder;
        /** The URL patterns the servlet filter is mapped to (routes decide what is limited within them). */
        private List<String> urlPatterns = new ArrayList<>(List.of("/*"));
        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public Integer getOrder() { return order; }
        public void setOrder(Integer order) { this.order = order; }
        public boolean isOverrideSecurityOrder() { return overrideSecurityOrder; }
        public void setOverrideSecurityOrder(boolean overrideSecurityOrder) { this.overrideSecurityOrder = overrideSecurityOrder; }
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
