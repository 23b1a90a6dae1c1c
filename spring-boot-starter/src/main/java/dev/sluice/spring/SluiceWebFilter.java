package dev.sluice.spring;

import dev.sluice.http.HttpDecision;
import dev.sluice.http.HttpRateLimiter;
import dev.sluice.http.HttpRequestView;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
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
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.util.ClassUtils;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.util.UriUtils;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.Connection;
import reactor.netty.http.server.HttpServerRequest;

/**
 * The WebFlux counterpart of the servlet {@code RateLimitFilter}: the same routes, identity rules, headers,
 * 429 and 503 answers and shadow mode (both are {@link HttpRateLimiter}), decided with {@code acquireAsync},
 * so no thread, and never an event-loop thread, waits for the store.
 *
 * <p>The path matched is the request's path inside the application, decoded. The principal is the
 * exchange's ({@link ServerWebExchange#getPrincipal()}), so with Spring Security a policy keyed on it belongs
 * after its {@code WebFilterChainProxy} (order -100), and one keyed on the address before it (the starter places
 * them so, see {@code sluice.filter.order}). A concurrency policy's lease is
 * held until the response completes, errors or is cancelled. A policy that settles from the response
 * ({@code count-statuses}, {@code cost-header}) is settled when the response commits, with its status and headers; a
 * response that never commits (the client went away) leaves the reservation.
 *
 * <p>The client address is the socket peer as Netty saw it (the channel's remote address) and the
 * forwarding headers are those Netty received, whatever Spring's {@code ForwardedHeaderTransformer} or
 * Reactor Netty's forwarded mode (which Spring Boot turns on by itself on Kubernetes) made of them: those
 * believe the left-most {@code X-Forwarded-For} entry of any peer, while Sluice believes only its own
 * {@code sluice.client.trusted-proxies}. On another server, the request's remote address, and for an
 * unresolved one (as {@code ForwardedHeaderTransformer} builds) its host string, which must be an IP literal.
 *
 * <p>When some route is limited to methods without {@code POST}, a form {@code POST} has its form read first
 * (Spring caches it on the exchange, so the application reads it as usual), so a {@code _method} field counts as the method it asks for, as Spring's reactive
 * {@code HiddenHttpMethodFilter} would honour it.
 */
public final class SluiceWebFilter implements WebFilter, Ordered {
    private final HttpRateLimiter rateLimiter;
    private final int order;
    private final boolean active;

    /** A filter at {@code order} that decides {@code rateLimiter}'s routes. */
    public SluiceWebFilter(HttpRateLimiter rateLimiter, int order) {
        this(rateLimiter, order, true);
    }

    /** An inactive filter passes every exchange on: a place kept for policies that have none to run in. */
    SluiceWebFilter(HttpRateLimiter rateLimiter, int order, boolean active) {
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        this.order = order;
        this.active = active;
    }

    /** Whether this filter decides anything. */
    boolean active() {
        return active;
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (!active) {
            return chain.filter(exchange);
        }
        return view(exchange).flatMap(view -> decided(rateLimiter.decideAsync(view)))
                .flatMap(decision -> answer(decision, exchange, chain));
    }

    /**
     * Decides {@code policies} for the exchange whatever {@code sluice.routes} say (for a server that routes
     * itself, such as a gateway) and answers as {@link #filter(ServerWebExchange, WebFilterChain)} does.
     */
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain, List<String> policies) {
        return filter(exchange, chain, policies, null);
    }

    /**
     * {@link #filter(ServerWebExchange, WebFilterChain, List)} for an exchange the server routed by {@code route} (a
     * gateway route's id), which a refusal names as the route that matched; null for none.
     */
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain, List<String> policies, String route) {
        return view(exchange).flatMap(view -> decided(rateLimiter.decideAsync(view, policies, route)))
                .flatMap(decision -> answer(decision, exchange, chain));
    }

    /** The exchange as the rate limiter reads it: the socket peer and headers the server received, the principal. */
    public Mono<HttpRequestView> view(ServerWebExchange exchange) {
        Mono<MultiValueMap<String, String>> form = rateLimiter.config().overridesMatter()
                && isFormPost(exchange.getRequest()) ? exchange.getFormData() : Mono.just(EMPTY_FORM);
        return form.zipWith(exchange.getPrincipal().map(Optional::of).defaultIfEmpty(Optional.empty()))
                .map(t -> new View(exchange, t.getT2().orElse(null), t.getT1()));
    }

    private static final MultiValueMap<String, String> EMPTY_FORM = new LinkedMultiValueMap<>(0);

    private static boolean isFormPost(ServerHttpRequest request) {
        MediaType type = request.getHeaders().getContentType();
        return HttpMethod.POST.equals(request.getMethod()) && type != null
                && MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(type);
    }

    /**
     * The decision as a Mono. A grant already made (in-process stores, a local allowance) goes on at once; a
     * decision the store completes later goes on on Reactor's parallel scheduler rather than on the store's
     * callback threads, which must stay free for decisions. A refusal already made goes there too: answered
     * within the very call that dispatched a keep-alive request Reactor Netty had held back, it leaves the
     * connection no longer read, so the client's next request on it waits forever (reactor-netty#4361).
     */
    private static Mono<HttpDecision> decided(CompletableFuture<HttpDecision> future) {
        if (future.isDone() && !future.isCompletedExceptionally() && future.join().proceeds()) {
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
            if (hasBody(exchange.getRequest())) {
                // The request's body is never read: the connection must not carry the client's next request
                // after it (the servlet container drains or closes by itself; a reactive server may not).
                headers.set(HttpHeaders.CONNECTION, "close");
            }
            return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
        }
        if (decision.settlesFromResponse()) {
            // At commit the status and headers are final (a gateway has copied the backend's by then), whoever
            // commits: the application, an error handler, or the proxied response.
            response.beforeCommit(() -> {
                HttpStatusCode status = response.getStatusCode();
                decision.settle(status == null ? 200 : status.value(), headers::getFirst);
                return Mono.empty();
            });
        }
        if (decision.heldLeases().isEmpty()) {
            return chain.filter(exchange);
        }
        return chain.filter(exchange).doFinally(signal -> decision.release());
    }

    private static boolean hasBody(ServerHttpRequest request) {
        HttpHeaders h = request.getHeaders();
        return h.getContentLength() > 0 || h.containsHeader(HttpHeaders.TRANSFER_ENCODING);
    }

    /** A reactive request as the rate limiter reads it. */
    private static final class View implements HttpRequestView {
        private static final boolean NETTY = ClassUtils.isPresent("reactor.netty.http.server.HttpServerRequest",
                SluiceWebFilter.class.getClassLoader());

        private final ServerWebExchange exchange;
        private final ServerHttpRequest request;
        private final Principal principal;
        private final MultiValueMap<String, String> form;
        private final Object nativeRequest;

        View(ServerWebExchange exchange, Principal principal, MultiValueMap<String, String> form) {
            this.exchange = exchange;
            this.request = exchange.getRequest();
            this.principal = principal;
            this.form = form;
            this.nativeRequest = ServerHttpRequestDecorator.getNativeRequest(request);
        }

        @Override public String getMethod() { return request.getMethod().name(); }
        @Override public String getHeader(String name) { return request.getHeaders().getFirst(name); }
        @Override public String getQueryString() { return request.getURI().getRawQuery(); }
        @Override public Principal getUserPrincipal() { return principal; }
        @Override public Object unwrap() { return exchange; }

        @Override
        public Enumeration<String> getHeaders(String name) {
            if (NETTY && isForwarding(name)) {
                List<String> received = NettyRequest.headers(nativeRequest, name);
                if (received != null) {
                    return Collections.enumeration(received);
                }
            }
            List<String> values = request.getHeaders().get(name);
            return values == null ? Collections.emptyEnumeration() : Collections.enumeration(values);
        }

        private static boolean isForwarding(String name) {
            return name.equalsIgnoreCase("X-Forwarded-For") || name.equalsIgnoreCase("Forwarded");
        }

        /** Spring decodes the query's names and values; the form, read before deciding, likewise. */
        @Override
        public String[] getParameterValues(String name) {
            List<String> values = new ArrayList<>();
            List<String> query = request.getQueryParams().get(name);
            if (query != null) {
                values.addAll(query);
            }
            List<String> fields = form.get(name);
            if (fields != null) {
                values.addAll(fields);
            }
            return values.isEmpty() ? null : values.toArray(String[]::new);
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
            if (NETTY && NettyRequest.isNetty(nativeRequest)) {
                // Only the channel's own address: on a Unix socket, the request's would be a forwarded one.
                SocketAddress peer = NettyRequest.peer(nativeRequest);
                return peer instanceof InetSocketAddress inet ? text(inet) : null;
            }
            InetSocketAddress remote = request.getRemoteAddress();
            return remote == null ? null : text(remote);
        }

        /** An unresolved address carries the text it was made from; the rate limiter accepts only an IP literal. */
        private static String text(InetSocketAddress remote) {
            InetAddress address = remote.getAddress();
            return address != null ? address.getHostAddress() : remote.getHostString();
        }
    }

    /** Reactor Netty's own request, only touched when Reactor Netty is on the class path. */
    private static final class NettyRequest {
        private NettyRequest() {}

        static boolean isNetty(Object nativeRequest) {
            return nativeRequest instanceof Connection;
        }

        /** The channel's remote address: the socket peer, which no forwarded-header support rewrites. */
        static SocketAddress peer(Object nativeRequest) {
            return ((Connection) nativeRequest).channel().remoteAddress();
        }

        /** The header lines as Netty received them; null if this is not a Reactor Netty request. */
        static List<String> headers(Object nativeRequest, String name) {
            return nativeRequest instanceof HttpServerRequest http ? http.requestHeaders().getAll(name) : null;
        }
    }
}
