package dev.sluice.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.limiter.LimitSpec;
import dev.sluice.limiter.RateLimiters;
import dev.sluice.limiter.local.LocalRateLimiters;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An operator's client ({@code address:}, {@code api-key:}, {@code principal:}) is keyed by each policy's own rule,
 * exactly as a request from that client is.
 */
final class IdentityOfTest {
    private final RateLimiters limiters = LocalRateLimiters.create();
    private final HttpRateLimiter rateLimiter = new HttpRateLimiter(limiters, HttpRateLimiterConfig.builder()
            .apiKeyHeader("X-Api-Key")
            .policy("keys", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)))
            .policy(RateLimitPolicy.of("login", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)))
                    .withIdentity(ClientIdentityResolver.address(TrustedProxies.none())))
            .policy(RateLimitPolicy.of("users", LimitSpec.fixedWindow(5, Duration.ofMinutes(1)))
                    .withIdentity(ClientIdentityResolver.principal()))
            .identitySecret("a secret of at least sixteen characters")
            .build());

    @AfterEach
    void close() {
        rateLimiter.close();
        limiters.close();
    }

    @Test
    void address_isKeyedAsARequestFromIt_ipv6Grouped() {
        String ipv6 = "2001:db8:1:2:aaaa:bbbb:cccc:dddd";
        assertEquals(rateLimiter.identity(Requests.of("GET", "/").from(ipv6)), rateLimiter.identityOf("login",
                "address:" + ipv6));
        assertEquals(rateLimiter.identityOf("login", "address:2001:db8:1:2::1"), rateLimiter.identityOf("login",
                "address:" + ipv6), "one budget per /64, as at the edge");
        assertEquals("ip:203.0.113.7", rateLimiter.identityOf("login", "address:203.0.113.7"));
    }

    @Test
    void apiKeyAndPrincipal_areKeyedAsARequestCarryingThem() {
        assertEquals(rateLimiter.identity(Requests.of("GET", "/").from("10.0.0.1").header("X-Api-Key", "k-4711")),
                rateLimiter.identityOf("keys", "api-key:k-4711"));
        assertEquals("principal:alice", rateLimiter.identityOf("users", "principal:alice"));
        assertTrue(rateLimiter.partition(rateLimiter.identityOf("users", "principal:alice")).matches("[A-Za-z0-9_-]{24}"));
    }

    @Test
    void badClientOrPolicy_isRefusedNamingTheValue() {
        IllegalArgumentException kind = assertThrows(IllegalArgumentException.class,
                () -> rateLimiter.identityOf("login", "email:alice@example.com"));
        assertTrue(kind.getMessage().contains("address:<ip>") && kind.getMessage().contains("email:alice@example.com"),
                kind.getMessage());
        assertThrows(IllegalArgumentException.class, () -> rateLimiter.identityOf("login", "address:"));
        IllegalArgumentException policy = assertThrows(IllegalArgumentException.class,
                () -> rateLimiter.identityOf("nope", "address:203.0.113.7"));
        assertTrue(policy.getMessage().contains("'nope'"), policy.getMessage());
    }
}
