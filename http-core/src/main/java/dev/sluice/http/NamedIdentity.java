package dev.sluice.http;

import java.util.List;
import java.util.Set;

/**
 * An identity named in properties ({@code address}, {@code api-key}, {@code principal}, {@code global},
 * tried in order), which {@link HttpRateLimiterConfig.Builder#build()} turns into a resolver once the
 * client settings it depends on (API key header, trusted proxies, IPv6 prefix) are final.
 *
 * @param names the identity names, in order
 * @param property the property that named them, for error messages
 */
record NamedIdentity(List<String> names, String property) implements ClientIdentityResolver {
    static final Set<String> NAMES = Set.of("address", "api-key", "principal", "global");

    NamedIdentity {
        names = List.copyOf(names);
    }

    @Override
    public String resolve(HttpRequestView request) {
        throw new IllegalStateException("identity " + names + " of " + property + " was not resolved by build()");
    }
}
