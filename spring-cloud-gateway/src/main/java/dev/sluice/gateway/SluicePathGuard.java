package dev.sluice.gateway;

import dev.sluice.http.HttpRateLimiter;
import dev.sluice.spring.SluiceWebFilter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Refuses, with 400, a request whose path a backend could read as another path than the one the gateway
 * matched its routes on. The gateway matches {@code Path} predicates on the path as sent and forwards it as
 * sent, while most backends (servlet containers, Spring MVC, many proxies) first remove dot-segments: without
 * this filter {@code /api/../login} or {@code /api/%2e%2e/login} would match the {@code /api/**} route, be
 * charged to its policies, and be served by the backend as {@code /login}. Refused: a segment that is
 * {@code .} or {@code ..} however spelled (percent-encoded, with path parameters as in {@code ..;x}), an empty
 * segment ({@code //}, which backends merge), a segment whose ends are whitespace or control characters
 * ({@code login%09}, which lenient matchers trim), and an encoded or literal separator ({@code %2F},
 * {@code %5C}, {@code \}, {@code %3B}), much as Spring Security's default firewall refuses them. Browsers and
 * HTTP clients never send these, so only crafted requests carry them. Runs before every other filter.
 *
 * <p>When a policy is named both by {@code sluice.routes} and by a route's {@code Sluice} filter, it also
 * records which policies {@code sluice.routes} charges for the request, so that the route filter charges the
 * rest only (see {@link SluiceGatewayFilterFactory}).
 */
public final class SluicePathGuard implements WebFilter, Ordered {
    /** The exchange attribute: the policies that {@code sluice.routes} charges for this request. */
    public static final String ROUTED_POLICIES = SluicePathGuard.class.getName() + ".routedPolicies";

    private static final byte[] BODY = ("{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,"
            + "\"detail\":\"the path has a dot-segment, an empty segment or an encoded separator\"}")
            .getBytes(StandardCharsets.UTF_8);

    private final HttpRateLimiter rateLimiter;
    private final SluiceWebFilter views;
    private volatile Set<String> sharedPolicies = Set.of();

    public SluicePathGuard(HttpRateLimiter rateLimiter) {
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        this.views = new SluiceWebFilter(rateLimiter, 0);
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    /** Adds policies named both by {@code sluice.routes}, decided by the application's filter, and by a route. */
    synchronized void shareWithRoutes(Set<String> policies) {
        if (!sharedPolicies.containsAll(policies)) {
            Set<String> all = new HashSet<>(sharedPolicies);
            all.addAll(policies);
            sharedPolicies = Set.copyOf(all);
        }
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (isAmbiguous(exchange.getRequest().getURI().getRawPath())) {
            ServerHttpResponse response = exchange.getResponse();
            response.setStatusCode(HttpStatus.BAD_REQUEST);
            response.getHeaders().set(HttpHeaders.CONTENT_TYPE, "application/problem+json");
            response.getHeaders().setContentLength(BODY.length);
            return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(BODY)));
        }
        if (sharedPolicies.isEmpty()) {
            return chain.filter(exchange);
        }
        return views.view(exchange).flatMap(view -> {
            List<String> routed = rateLimiter.routedPolicies(view);
            if (!routed.isEmpty()) {
                exchange.getAttributes().put(ROUTED_POLICIES, Set.copyOf(routed));
            }
            return chain.filter(exchange);
        });
    }

    /**
     * Whether a raw (still encoded) path has a segment whose name (before its path parameters), decoded, is
     * {@code .} or {@code ..}, empty (other than a trailing {@code /}), begins or ends with whitespace, a control or
     * an invisible format character, or holds a {@code /}, {@code \} or {@code ;}. Each is a spelling some backend
     * reads as another path: {@code ..;} is {@code ..} to Tomcat, {@code %09} is trimmed by lenient matchers,
     * {@code %3B} is decoded into a path parameter.
     */
    static boolean isAmbiguous(String rawPath) {
        if (rawPath == null || rawPath.isEmpty()) {
            return false;
        }
        if (rawPath.indexOf('\\') >= 0) {
            return true;
        }
        int n = rawPath.length();
        int start = rawPath.charAt(0) == '/' ? 1 : 0;
        while (start <= n) {
            int end = rawPath.indexOf('/', start);
            if (end < 0) {
                end = n;
            }
            String raw = rawPath.substring(start, end);
            int parameters = raw.indexOf(';');
            String name = decode(parameters >= 0 ? raw.substring(0, parameters) : raw);
            if (name == null || name.indexOf('/') >= 0 || name.indexOf('\\') >= 0 || name.indexOf(';') >= 0) {
                return true;
            }
            if (name.isEmpty() ? end < n || parameters >= 0 : !trim(name).equals(name)) {
                return true;
            }
            if (name.equals(".") || name.equals("..")) {
                return true;
            }
            start = end + 1;
        }
        return false;
    }

    /** The segment percent-decoded as UTF-8; null when an escape is malformed. */
    private static String decode(String segment) {
        if (segment.indexOf('%') < 0) {
            return segment;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c != '%') {
                out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
                continue;
            }
            int hi = i + 2 < segment.length() ? Character.digit(segment.charAt(i + 1), 16) : -1;
            int lo = hi < 0 ? -1 : Character.digit(segment.charAt(i + 2), 16);
            if (lo < 0) {
                return null;
            }
            out.write((hi << 4) | lo);
            i += 2;
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Drops leading and trailing whitespace, control and invisible format characters, as lenient servers do. */
    private static String trim(String s) {
        int from = 0;
        int to = s.length();
        while (from < to && ignorable(s.codePointAt(from))) {
            from += Character.charCount(s.codePointAt(from));
        }
        while (to > from && ignorable(s.codePointBefore(to))) {
            to -= Character.charCount(s.codePointBefore(to));
        }
        return s.substring(from, to);
    }

    private static boolean ignorable(int codePoint) {
        return Character.isWhitespace(codePoint) || Character.isSpaceChar(codePoint)
                || Character.isISOControl(codePoint) || Character.getType(codePoint) == Character.FORMAT;
    }
}
