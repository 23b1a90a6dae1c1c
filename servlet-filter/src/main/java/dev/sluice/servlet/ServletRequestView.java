package dev.sluice.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Collections;
import java.util.Enumeration;

/** A servlet request as the rate limiter reads it. */
final class ServletRequestView implements HttpRequestView {
    private final HttpServletRequest request;

    ServletRequestView(HttpServletRequest request) {
        this.request = request;
    }

    @Override public String getMethod() { return request.getMethod(); }
    @Override public String getHeader(String name) { return request.getHeader(name); }
    @Override public String getQueryString() { return request.getQueryString(); }
    @Override public String getRemoteAddr() { return request.getRemoteAddr(); }
    @Override public Principal getUserPrincipal() { return request.getUserPrincipal(); }
    @Override public Object unwrap() { return request; }

    @Override
    public Enumeration<String> getHeaders(String name) {
        Enumeration<String> values = request.getHeaders(name);
        return values == null ? Collections.emptyEnumeration() : values;
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
