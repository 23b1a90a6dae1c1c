package dev.sluice.servlet;

import dev.sluice.http.HttpRequestView;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletRequestWrapper;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;

/**
 * A servlet request as the rate limiter reads it. The method, path, principal and other headers are the
 * request's as the filter got it (an earlier filter's method override or authentication included); the peer
 * address and the forwarding headers are the container's own, from beneath every wrapper (Spring's
 * {@code ForwardedHeaderFilter} replaces the address and hides the headers), or, when a server component
 * recorded them before the container rewrote them itself, from {@link RateLimitFilter#PEER_ADDRESS_ATTRIBUTE}
 * and {@link RateLimitFilter#FORWARDING_HEADERS_ATTRIBUTE}.
 */
final class ServletRequestView implements HttpRequestView {
    private final HttpServletRequest request;
    private final ServletRequest container;

    ServletRequestView(HttpServletRequest request) {
        this.request = request;
        ServletRequest r = request;
        while (r instanceof ServletRequestWrapper w) {
            r = w.getRequest();
        }
        this.container = r;
    }

    @Override public String getMethod() { return request.getMethod(); }
    @Override public String getHeader(String name) { return request.getHeader(name); }
    @Override public String getQueryString() { return request.getQueryString(); }
    @Override public Principal getUserPrincipal() { return request.getUserPrincipal(); }
    @Override public Object unwrap() { return request; }
    /** The container's parameters; null where it cannot parse them (the application gets its 400 later). */
    @Override
    public String[] getParameterValues(String name) {
        try {
            return request.getParameterValues(name);
        } catch (RuntimeException malformed) {
            return null;
        }
    }

    @Override
    public String getRemoteAddr() {
        Object recorded = request.getAttribute(RateLimitFilter.PEER_ADDRESS_ATTRIBUTE);
        return recorded instanceof String peer ? peer : container.getRemoteAddr();
    }

    @Override
    public Enumeration<String> getHeaders(String name) {
        if (isForwarding(name)) {
            Object recorded = request.getAttribute(RateLimitFilter.FORWARDING_HEADERS_ATTRIBUTE);
            if (recorded instanceof Map<?, ?> headers) {
                Object values = headers.get(name.toLowerCase(java.util.Locale.ROOT));
                if (values instanceof List<?> list) {
                    return Collections.enumeration(list.stream().map(String::valueOf).toList());
                }
                return Collections.emptyEnumeration();
            }
            if (container instanceof HttpServletRequest http) {
                Enumeration<String> values = http.getHeaders(name);
                return values == null ? Collections.emptyEnumeration() : values;
            }
        }
        Enumeration<String> values = request.getHeaders(name);
        return values == null ? Collections.emptyEnumeration() : values;
    }

    static boolean isForwarding(String name) {
        return name.equalsIgnoreCase("X-Forwarded-For") || name.equalsIgnoreCase("Forwarded");
    }

    /** The path inside the application, as decoded and normalized by the container. */
    @Override
    public String getPath() {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        if (path.isEmpty()) {
            String uri = request.getRequestURI() == null ? "" : request.getRequestURI();
            String context = request.getContextPath() == null ? "" : request.getContextPath();
            path = uri.startsWith(context) ? uri.substring(context.length()) : uri;
        }
        return path.isEmpty() ? "/" : path;
    }
}
