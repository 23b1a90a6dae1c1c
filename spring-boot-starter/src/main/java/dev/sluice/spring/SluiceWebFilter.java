package dev.sluice.spring;

import dev.sluice.servlet.HttpDecision;
import dev.sluice.servlet.HttpRateLimiter;
import dev.sluice.servlet.HttpRequestView;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.UriUtils;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The WebFlux counterpart of the servlet {@code RateLimitFilter}: the same routes, identity rules, headers,
 * 429 and 503 answers and shadow mode (both are {@link HttpRateLimiter}), decided with {@code acquireAsync},
 * so no thread, and never an event-loop thread, waits for the store.
 *
 * <p>The path matched is the request's path inside the application, decoded. The principal is the
 * exchange's ({@link ServerWebExchange#getPrincipal()}), so with Spring Security the filter belongs after
 * its {@code WebFilterChainProxy} (order -100; this filter's default is 0). A concurrency policy's lease is
 * held until the response completes, errors or is cancelled.
 */
public final class SluiceWebFilter implements WebFilter, Ordered {
    private final HttpRateLimiter rateLimiter;
    private final int order;

    public SluiceWebFilter(HttpRateLimiter rateLimiter, int order) {
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        this.order = order;
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        return exchange.getPrincipal().map(Optional::of).defaultIfEmpty(Optional.empty())
                .flatMap(principal -> decided(rateLimiter.decideAsync(new View(exchange, principal.orElse(null)))))
                .flatMap(decision -> answer(decision, exchange, chain));
    }

    /**
     * The decision as a Mono. One already made (in-process stores, a local refusal) goes on at once; one
     * the store completes later goes on on Reactor's parallel scheduler rather than on the store's callback
     * threads, which must stay free for decisions.
     */
    private static Mono<HttpDecision> decided(CompletableFuture<HttpDecision> future) {
        if (future.isDone() && !future.isCompletedExceptionally()) {
            return Mono.just(future.join());
        }
        return Mono.fromFuture(future).publishOn(Schedulers.parallel());
    }

    private static Mono<Void> answer(HttpDecision decision, ServerWebExchange exchange, WebFilterChain chain) {
        if (!decision.limited()) {
            return chain.filter(exchange);
        }
        ServerHttpResponse response = exchange.getResponse();
        HttpHeaders headers = response.getHeaders();
        for (Map.Entry<String, String> h : decision.headers()) {
            headers.set(h.getKey(), h.getValue());
        }
        if (!decision.proceeds()) {
            byte[] body = decision.body();
            response.setStatusCode(HttpStatusCode.valueOf(decision.status()));
            headers.set(HttpHeaders.CONTENT_TYPE, HttpDecision.PROBLEM_CONTENT_TYPE);
            headers.setContentLength(body.length);
            return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
        }
        if (decision.heldLeases().isEmpty()) {
            return chain.filter(exchange);
        }
        return chain.filter(exchange).doFinally(signal -> decision.release());
    }

    /** A reactive request as the rate limiter reads it. */
    private static final class View implements HttpRequestView {
        private final ServerWebExchange exchange;
        private final ServerHttpRequest request;
        private final Principal principal;

        View(ServerWebExchange exchange, Principal principal) {
            this.exchange = exchange;
            this.request = exchange.getRequest();
            this.principal = principal;
        }

        @Override public String getMethod() { return request.getMethod().name(); }
        @Override public String getHeader(String name) { return request.getHeaders().getFirst(name); }
        @Override public String getQueryString() { return request.getURI().getRawQuery(); }
        @Override public Principal getUserPrincipal() { return principal; }
        @Override public Object unwrap() { return exchange; }

        @Override
        public Enumeration<String> getHeaders(String name) {
            List<String> values = request.getHeaders().get(name);
            return values == null ? Collections.emptyEnumeration() : Collections.enumeration(values);
        }

        /** Decoded as a servlet container decodes its path, so routes match the same spellings. */
        @Override
        public String getPath() {
            String raw = request.getPath().pathWithinApplication().value();
            String path;
            try {
                path = UriUtils.decode(raw, StandardCharsets.UTF_8);
            } catch (IllegalArgumentException malformed) {
                path = raw; // matched as written; the application will not decode it either
            }
            return path.isEmpty() ? "/" : path;
        }

        @Override
        public String getRemoteAddr() {
            InetSocketAddress remote = request.getRemoteAddress();
            InetAddress address = remote == null ? null : remote.getAddress();
            return address == null ? null : address.getHostAddress();
        }
    }
}
