package dev.sluice.gateway;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.spring.SluiceWebFilter;
import java.util.Objects;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The client as Sluice's filters identify it, for {@code RequestRateLimiter}: the configured identity
 * ({@code sluice.client.identity}: the principal, an API key) or else the client address, from the socket peer
 * the server saw and forwarding headers only from {@code sluice.client.trusted-proxies}. Never empty, so
 * {@code deny-empty-key} never applies; a client cannot pick another's key by sending a header.
 */
public class SluiceKeyResolver implements KeyResolver {
    private final HttpRateLimiter rateLimiter;
    private final SluiceWebFilter views;

    public SluiceKeyResolver(HttpRateLimiter rateLimiter) {
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        this.views = new SluiceWebFilter(rateLimiter, 0);
    }

    @Override
    public Mono<String> resolve(ServerWebExchange exchange) {
        return views.view(exchange).map(rateLimiter::identity);
    }
}
