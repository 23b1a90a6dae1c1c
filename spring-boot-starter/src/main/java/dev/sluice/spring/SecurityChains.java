package dev.sluice.spring;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.RequestPath;
import org.springframework.util.LinkedMultiValueMap;

/**
 * What Spring Security's filter chains, where the application has them, answer themselves: the requests an
 * authentication processing filter (form login, OAuth2 login, SAML) takes for its own, such as {@code POST /login}.
 * Each chain is asked with a request of the method and path, built here, never sent; a filter that would take
 * any request at all (a path no application serves) is not answering a URL of its own but reading a header, as
 * HTTP Basic and bearer tokens do. The matcher of each filter is read from its private field, as Spring Security
 * exposes no getter; a chain or a Spring Security version where that fails is not reported, never guessed.
 */
final class SecurityChains {
    private static final String NOWHERE = "/sluice-probe-of-no-such-path/0";

    private SecurityChains() {}

    /** Spring Security on a servlet stack; only loaded where spring-security-web is on the class path. */
    static final class Servlet {
        private Servlet() {}

        /** The order Spring Boot registers Spring Security's filter with, or null if there is no chain. */
        static Integer order(ListableBeanFactory beans, org.springframework.core.env.Environment environment) {
            Map<String, org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean> registrations =
                    beans.getBeansOfType(org.springframework.boot.web.servlet.DelegatingFilterProxyRegistrationBean.class);
            for (var r : registrations.values()) {
                if (SluiceFilterPlacement.SECURITY_FILTER_NAME.equals(r.getFilterName())) {
                    return r.getOrder();
                }
            }
            if (beans.containsBean(SluiceFilterPlacement.SECURITY_FILTER_NAME)
                    || beans.getBeanNamesForType(org.springframework.security.web.FilterChainProxy.class).length > 0) {
                // A chain registered as a plain filter bean: the order Spring Boot's security configuration uses.
                return environment.getProperty("spring.security.filter.order", Integer.class, -100);
            }
            return null;
        }

        /** Whether a chain answers {@code method path} itself. */
        static boolean answers(ListableBeanFactory beans, String method, String path) {
            jakarta.servlet.http.HttpServletRequest request = request(method, path);
            jakarta.servlet.http.HttpServletRequest nowhere = request(method, NOWHERE);
            for (org.springframework.security.web.SecurityFilterChain chain : beans
                    .getBeanProvider(org.springframework.security.web.SecurityFilterChain.class).orderedStream()
                    .toList()) {
                try {
                    if (!chain.matches(request)) {
                        continue;
                    }
                    for (jakarta.servlet.Filter filter : chain.getFilters()) {
                        if (filter instanceof org.springframework.security.web.authentication
                                .AbstractAuthenticationProcessingFilter) {
                            Object matcher = field(org.springframework.security.web.authentication
                                    .AbstractAuthenticationProcessingFilter.class, filter,
                                    "requiresAuthenticationRequestMatcher");
                            if (matcher instanceof org.springframework.security.web.util.matcher.RequestMatcher m
                                    && m.matches(request(method, path)) && !m.matches(nowhere)) {
                                return true;
                            }
                        }
                    }
                    return false; // the first chain that matches is the one that runs
                } catch (RuntimeException e) {
                    return false;
                }
            }
            return false;
        }

        /** A request that carries a method and a path in the application, and nothing else. */
        private static jakarta.servlet.http.HttpServletRequest request(String method, String path) {
            Map<String, Object> attributes = new HashMap<>();
            InvocationHandler handler = (proxy, m, args) -> switch (m.getName()) {
                case "getMethod" -> method;
                case "getRequestURI", "getPathInfo" -> path;
                case "getRequestURL" -> new StringBuffer("http://localhost").append(path);
                case "getContextPath", "getServletPath" -> "";
                case "getScheme" -> "http";
                case "getServerName" -> "localhost";
                case "getServerPort" -> 80;
                case "getDispatcherType" -> jakarta.servlet.DispatcherType.REQUEST;
                case "getAttribute" -> attributes.get((String) args[0]);
                case "setAttribute" -> attributes.put((String) args[0], args[1]);
                case "removeAttribute" -> attributes.remove((String) args[0]);
                case "getAttributeNames" -> Collections.enumeration(attributes.keySet());
                case "getHeaders", "getHeaderNames", "getParameterNames", "getLocales" -> Collections.emptyEnumeration();
                case "getParameterMap" -> Map.of();
                case "getHttpServletMapping" -> mapping();
                case "toString" -> method + " " + path;
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> empty(m);
            };
            return (jakarta.servlet.http.HttpServletRequest) Proxy.newProxyInstance(
                    SecurityChains.class.getClassLoader(),
                    new Class<?>[] {jakarta.servlet.http.HttpServletRequest.class}, handler);
        }

        private static jakarta.servlet.http.HttpServletMapping mapping() {
            return (jakarta.servlet.http.HttpServletMapping) Proxy.newProxyInstance(
                    SecurityChains.class.getClassLoader(),
                    new Class<?>[] {jakarta.servlet.http.HttpServletMapping.class}, (proxy, m, args) ->
                            switch (m.getName()) {
                                case "getMappingMatch" -> jakarta.servlet.http.MappingMatch.DEFAULT;
                                case "getMatchValue", "getServletName" -> "";
                                case "getPattern" -> "/";
                                default -> empty(m);
                            });
        }
    }

    /** Spring Security on WebFlux; only loaded where spring-security-web and WebFlux are on the class path. */
    static final class Reactive {
        private Reactive() {}

        /** The order of Spring Security's {@code WebFilterChainProxy}, or null if there is none. */
        static Integer order(ListableBeanFactory beans) {
            String[] names = beans.getBeanNamesForType(org.springframework.security.web.server.WebFilterChainProxy.class);
            if (names.length == 0) {
                return null;
            }
            Order order = beans.findAnnotationOnBean(names[0], Order.class);
            if (order != null) {
                return order.value();
            }
            Object bean = beans.getBean(names[0]);
            return bean instanceof Ordered o ? o.getOrder() : Ordered.LOWEST_PRECEDENCE;
        }

        /** Whether a chain answers {@code method path} itself. */
        static boolean answers(ListableBeanFactory beans, String method, String path) {
            for (org.springframework.security.web.server.SecurityWebFilterChain chain : beans
                    .getBeanProvider(org.springframework.security.web.server.SecurityWebFilterChain.class)
                    .orderedStream().toList()) {
                try {
                    if (!Boolean.TRUE.equals(chain.matches(exchange(method, path)).block(Duration.ofSeconds(5)))) {
                        continue;
                    }
                    List<org.springframework.web.server.WebFilter> filters =
                            chain.getWebFilters().collectList().block(Duration.ofSeconds(5));
                    for (org.springframework.web.server.WebFilter filter : filters == null
                            ? List.<org.springframework.web.server.WebFilter>of() : filters) {
                        if (filter instanceof org.springframework.security.web.server.authentication
                                .AuthenticationWebFilter) {
                            Object matcher = field(org.springframework.security.web.server.authentication
                                    .AuthenticationWebFilter.class, filter, "requiresAuthenticationMatcher");
                            if (matcher instanceof org.springframework.security.web.server.util.matcher
                                    .ServerWebExchangeMatcher m && matches(m, method, path)
                                    && !matches(m, method, NOWHERE)) {
                                return true;
                            }
                        }
                    }
                    return false;
                } catch (RuntimeException e) {
                    return false;
                }
            }
            return false;
        }

        private static boolean matches(org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher m,
                String method, String path) {
            var result = m.matches(exchange(method, path)).block(Duration.ofSeconds(5));
            return result != null && result.isMatch();
        }

        /** An exchange that carries a method and a path, and nothing else. */
        private static org.springframework.web.server.ServerWebExchange exchange(String method, String path) {
            URI uri = URI.create("http://localhost" + path);
            RequestPath requestPath = RequestPath.parse(uri.getRawPath(), null);
            Map<String, Object> attributes = new HashMap<>();
            HttpHeaders headers = new HttpHeaders();
            Object request = Proxy.newProxyInstance(SecurityChains.class.getClassLoader(),
                    new Class<?>[] {org.springframework.http.server.reactive.ServerHttpRequest.class},
                    (proxy, m, args) -> switch (m.getName()) {
                        case "getMethod" -> HttpMethod.valueOf(method);
                        case "getURI" -> uri;
                        case "getPath" -> requestPath;
                        case "getHeaders" -> headers;
                        case "getQueryParams" -> new LinkedMultiValueMap<String, String>();
                        case "getCookies" -> new LinkedMultiValueMap<String, HttpCookie>();
                        case "getAttributes" -> attributes;
                        case "getId" -> "sluice-probe";
                        case "toString" -> method + " " + path;
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> m.isDefault() ? InvocationHandler.invokeDefault(proxy, m, args) : empty(m);
                    });
            return (org.springframework.web.server.ServerWebExchange) Proxy.newProxyInstance(
                    SecurityChains.class.getClassLoader(),
                    new Class<?>[] {org.springframework.web.server.ServerWebExchange.class},
                    (proxy, m, args) -> switch (m.getName()) {
                        case "getRequest" -> request;
                        case "getAttributes" -> attributes;
                        case "getPrincipal" -> reactor.core.publisher.Mono.empty();
                        case "getFormData" -> reactor.core.publisher.Mono.just(new LinkedMultiValueMap<String, String>());
                        case "toString" -> method + " " + path;
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        default -> m.isDefault() ? InvocationHandler.invokeDefault(proxy, m, args) : empty(m);
                    });
        }
    }

    private static Object field(Class<?> owner, Object target, String name) {
        try {
            Field f = owner.getDeclaredField(name);
            f.setAccessible(true);
            return f.get(target);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static Object empty(Method m) {
        Class<?> type = m.getReturnType();
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        return null;
    }
}
